import type { AppContext } from '../platform/context.ts';
import { secretsEqual } from '../platform/crypto.ts';
import { toCaller } from './authenticate.ts';
import { ipAllowed } from './ip-whitelist.ts';
import { findLiveKeyWithAccount, findLiveKeyWithSecret, type KeyWithAccount } from './keys-store.ts';
import { openSecret } from './secrets.ts';
import type { Caller, CallerAccount } from './types.ts';

const API_KEY_SHAPE = /^[\x21-\x7e]{1,64}$/;
const MAX_SECRET_LENGTH = 512;
/** Opened in place of a missing key's secret, so an unknown key costs what a known one does. */
const NO_SECRET = Buffer.alloc(40);

/** A key that may sign in to the dashboard: its caller, whose account is a partner's. */
export type WebCaller = Caller & { account: CallerAccount };

/**
 * Whether the key and secret typed into the dashboard's sign-in are a live key and its own
 * secret, under the rules the API applies to the same key: its IP whitelist holds, and it is a
 * partner account's key (not a user's token, not an untied session). The secret is compared in
 * constant time (secretsEqual), also when no such key exists. Undefined for every refusal alike,
 * so the page never tells which part was wrong.
 */
export async function webCallerBySecret(
  ctx: AppContext,
  given: { apiKey: string; secret: string; ip: string },
): Promise<WebCaller | undefined> {
  const wellFormed = API_KEY_SHAPE.test(given.apiKey) && given.secret.length <= MAX_SECRET_LENGTH;
  const key = wellFormed ? await findLiveKeyWithSecret(ctx.db, given.apiKey) : undefined;
  const stored = key ? openSecret(ctx.config.masterKey, key.api_key, key.secret_sealed) : NO_SECRET;
  const matches = secretsEqual(given.secret, stored);
  if (!key || !matches) return undefined;
  return webCallerOf(key, given.ip);
}

/** The caller of a key that signed in, as it stands now: undefined once revoked or outside its whitelist. */
export async function liveWebCaller(ctx: AppContext, apiKey: string, ip: string) {
  return webCallerOf(await findLiveKeyWithAccount(ctx.db, apiKey), ip);
}

function webCallerOf(key: KeyWithAccount | undefined, ip: string): WebCaller | undefined {
  if (!key?.account || key.user_id) return undefined;
  if (!ipAllowed(key.ip_whitelist, ip)) return undefined;
  return { ...toCaller(key, 'signature'), account: key.account };
}
