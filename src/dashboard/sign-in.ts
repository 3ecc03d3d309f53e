import { type WebCaller, webCallerBySecret } from '../identity/index.ts';
import type { AppContext } from '../platform/context.ts';
import { dashboardErrors } from './errors.ts';
import { insertSignIn, recentRefusals } from './sign-ins-store.ts';

/**
 * The back-off of refused sign-ins (docs/contract.md, decision 162): counted in PostgreSQL, so
 * every process agrees, per address and per key over the last quarter hour. Past either limit
 * the secret is not even checked, so guessing gains nothing by going faster.
 */
const WINDOW_SECONDS = 15 * 60;
const MAX_REFUSED_PER_ADDRESS = 10;
const MAX_REFUSED_PER_KEY = 5;
/** What is recorded of a typed key: bounded, never the secret. */
const MAX_RECORDED_KEY = 64;

export interface SignInAttempt {
  apiKey: string;
  secret: string;
  address: string;
}

/**
 * Exchanges an API key and its secret for the caller the dashboard's session is made of. Every
 * attempt is recorded (allowed, refused, throttled) with the address it came from; refusals
 * are one answer whatever was wrong.
 */
export async function signIn(ctx: AppContext, attempt: SignInAttempt): Promise<WebCaller> {
  const apiKey = attempt.apiKey.slice(0, MAX_RECORDED_KEY);
  const record = (outcome: 'allowed' | 'refused' | 'throttled', accountId: string | null = null) =>
    insertSignIn(ctx.db, { apiKey, accountId, address: attempt.address, outcome });
  const refusals = await recentRefusals(ctx.db, {
    apiKey,
    address: attempt.address,
    windowSeconds: WINDOW_SECONDS,
  });
  if (refusals.byAddress >= MAX_REFUSED_PER_ADDRESS || refusals.byKey >= MAX_REFUSED_PER_KEY) {
    await record('throttled');
    throw dashboardErrors.throttled(WINDOW_SECONDS);
  }
  const caller = await webCallerBySecret(ctx, {
    apiKey: attempt.apiKey,
    secret: attempt.secret,
    ip: attempt.address,
  });
  if (!caller) {
    await record('refused');
    throw dashboardErrors.signInRefused();
  }
  await record('allowed', caller.account.id);
  return caller;
}
