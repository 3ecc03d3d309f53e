import { CHAINS, chainCarries, chainReachable, parseChainSrn } from '../chains/index.ts';
import { getAccount, type Scope } from '../identity/index.ts';
import { ApiError } from '../platform/errors.ts';
import { isId } from '../platform/ids.ts';
import type { OrderRulesDeps } from './deps.ts';
import { orderErrors } from './errors.ts';
import { BILLING_COUNTRIES, LOCAL_CURRENCY_COUNTRIES } from './supported.ts';

/** Checks shared by reservations and the partner quote endpoint. */

/** Every billing country is an ISO 3166-1 code, so the list alone decides (no ICU lookup per request). */
export function checkCountry(country: string): void {
  if (!BILLING_COUNTRIES.has(country)) throw orderErrors.unsupportedCountry(country);
}

/** A local presentment currency (NOK, SEK, …) is charged only to an address in its country. */
export function checkCurrencyForCountry(sourceCurrency: string, country: string | undefined): void {
  const countries = Object.hasOwn(LOCAL_CURRENCY_COUNTRIES, sourceCurrency)
    ? LOCAL_CURRENCY_COUNTRIES[sourceCurrency]
    : undefined;
  if (countries && (country === undefined || !countries.includes(country))) {
    throw orderErrors.localCurrencyElsewhere(sourceCurrency, countries);
  }
}

/**
 * The acting account itself or (unmasqueraded) one of its sub-accounts: the same visibility as
 * GET /v3/accounts/{id}. The acting account needs no query; anything else is one PK lookup.
 */
export async function isOwnAccount(ctx: OrderRulesDeps, scope: Scope, accountId: string): Promise<boolean> {
  if (accountId === scope.accountId) return true;
  if (!isId(accountId, 'AC')) return false;
  try {
    await getAccount(ctx, scope, accountId);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.type === 'NotFoundException') return false;
    throw error;
  }
}

export async function checkReferrer(
  ctx: OrderRulesDeps,
  scope: Scope,
  accountId: string,
  field = 'referrerAccountId',
): Promise<void> {
  if (!(await isOwnAccount(ctx, scope, accountId))) throw orderErrors.invalidReferrer(field);
}

/**
 * `dest` (docs/contract.md, Reservations and quotes): `<chain>:<address>` on a chain that carries destCurrency (address checked
 * with its checksum, on the environment's network), or `account:AC_…` / a bare `AC_…` naming the
 * caller's own account or a sub-account, which then holds the purchase in custody. Another
 * partner's account reads as unknown, so ids of other partners cannot be probed.
 */
export async function checkDest(
  ctx: OrderRulesDeps,
  scope: Scope,
  dest: string,
  destCurrency: string | undefined,
): Promise<void> {
  const accountId = dest.startsWith('account:')
    ? dest.slice('account:'.length)
    : dest.startsWith('AC_')
      ? dest
      : undefined;
  if (accountId !== undefined) {
    if (!(await isOwnAccount(ctx, scope, accountId))) throw orderErrors.destAccountUnknown();
    return;
  }
  const { chain } = parseChainSrn(dest, 'dest', ctx.chains.network);
  if (destCurrency === undefined) return;
  if (!chainCarries(ctx, chain, destCurrency)) {
    const chains = CHAINS.filter((other) => chainCarries(ctx, other, destCurrency));
    throw orderErrors.destWrongChain(chain, destCurrency, chains);
  }
  // Its delivery would wait for a node that does not answer: refused as transient instead.
  if (!chainReachable(ctx, chain)) throw orderErrors.chainDown(chain);
}
