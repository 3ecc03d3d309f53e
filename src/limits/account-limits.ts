import { countryOfAccount, type Scope } from '../identity/index.ts';
import { invalidValue, notFound } from '../platform/errors.ts';
import { isId } from '../platform/ids.ts';
import type { Money } from '../platform/money.ts';
import { currentLimits, type LimitsDeps, type LimitsView, tierOfUser } from './service.ts';
import { tableCountry, WINDOWS, type WindowName } from './tables.ts';

/** One window of one currency: what may come in and go out, and what is left of it. */
export interface WindowLimit {
  in: Money;
  out: Money | null;
  availIn: Money;
  availOut: Money | null;
}

/** Context → window in hours (as text) → currency → limit (docs/contract.md decision 43). */
export type LimitsByContext = Record<
  'ACCOUNT' | 'ACH' | 'DEBIT_CARD',
  Record<string, Record<string, WindowLimit>>
>;

const HOURS: Record<WindowName, string> = Object.fromEntries(
  WINDOWS.map((window) => [window.name, String(window.ms / 3_600_000)]),
) as Record<WindowName, string>;

/**
 * The card limits in Wyre's nesting. A card purchase only brings money in, so `out` and
 * `availOut` are null (no limit Rampart enforces); ACCOUNT and ACH hold no window because Rampart
 * enforces no limit there.
 */
function nested(view: LimitsView): LimitsByContext {
  const card: Record<string, Record<string, WindowLimit>> = {};
  for (const { name } of WINDOWS) {
    card[HOURS[name]] = {
      USD: { in: view[`${name}Total`], out: null, availIn: view[`${name}Remaining`], availOut: null },
    };
  }
  return { ACCOUNT: {}, ACH: {}, DEBIT_CARD: card };
}

/** `user:US_…` → the user id; `account:AC_…` or a bare `AC_…` → the account id; else invalid. */
function parseSrn(srn: string): { userId: string } | { accountId: string } {
  if (srn.startsWith('user:') && isId(srn.slice(5), 'US')) return { userId: srn.slice(5) };
  const accountId = srn.startsWith('account:') ? srn.slice('account:'.length) : srn;
  if (isId(accountId, 'AC')) return { accountId };
  throw invalidValue('srn', 'srn must be user:US_… or account:AC_….');
}

/**
 * GET /v3/limits (docs/contract.md decision 43): the card limits Rampart enforces, of the acting
 * account or (`srn=user:US_…`, or masquerading as a user) of one of the partner's users. A user's
 * limits are its tier's (DEBIT_CARD_L2 once approved) less what it spent; an account spends
 * nothing of its own (card spend counts per billing address, card and user), so its answer is
 * the table its buyers start from. Tables are the account's country's (or the partner's override).
 */
export async function limitsOf(ctx: LimitsDeps, scope: Scope, srn: string | undefined) {
  const target = srn === undefined ? undefined : parseSrn(srn);
  const userId = target && 'userId' in target ? target.userId : scope.userId;
  const accountId = target && 'accountId' in target ? target.accountId : scope.accountId;
  if (accountId !== scope.accountId || (scope.userId !== undefined && userId !== scope.userId)) {
    throw invalidValue('srn', 'srn must name the acting account or one of its users.');
  }
  const country = await countryOfAccount(ctx.db, scope.partnerId, accountId);
  if (country === undefined) throw notFound('Account');
  const tier = await tierOfUser(ctx.db, scope.partnerId, userId, 'srn');
  const subject = { partnerId: scope.partnerId, country: tableCountry(country), tier };
  // No spend is ever recorded under an account key: the account's own windows read as unspent.
  const keys = [userId === undefined ? `account:${accountId}` : `user:${userId}`];
  return nested(await currentLimits(ctx, subject, keys));
}
