import type { Queryable } from '../platform/db/pool.ts';
import { currencyScale, Money } from '../platform/money.ts';
import { isOverdraft, ledgerErrors } from './errors.ts';
import {
  balanceRows,
  currencyTotals,
  driftedBalances,
  type EntriesArguments,
  type EntryArguments,
  expiredHoldIds,
  type HoldArguments,
  ledgerPlaceHold,
  ledgerPostEntry,
  ledgerPostHold,
  ledgerSettleHold,
  ledgerVoidHold,
  ownerMovements,
  pendingHoldsExpiringBy,
  unbalancedCurrencies,
} from './store.ts';

export type { EntriesArguments, EntryArguments, HoldArguments } from './store.ts';
export { entriesParams, entriesValues } from './store.ts';

/**
 * The double-entry core. Every movement is one journal entry whose postings sum to zero per
 * currency; balances change in the same transaction; holds reserve available funds and are
 * posted or voided exactly once. No HTTP here: transfers, card orders and operator credits call
 * these functions with their own transaction.
 *
 * Owners are SRNs: `account:AC_…`, `user:US_…`, and the system owners `external:card`,
 * `external:chain:<chain>`, `external:bank`, `house:fx`, `house:fees`, `house:inventory` (which may
 * go negative).
 */
export interface Posting {
  owner: string;
  currency: string;
  /** Signed: negative leaves the owner, positive arrives. */
  amount: Money;
}

export interface NewEntry {
  kind: string;
  reference?: string;
  memo?: string;
  postings: Posting[];
}

/** Programming errors, not partner errors: an unbalanced entry is a bug in the caller. */
function assertWellFormed(postings: Posting[]): void {
  if (postings.length < 2) throw new Error('a ledger entry needs at least two postings');
  const sums = new Map<string, Money>();
  for (const { owner, currency, amount } of postings) {
    if (!owner || amount.isZero() || amount.decimalPlaces() > currencyScale(currency)) {
      throw new Error(`malformed posting ${owner} ${amount.toFixed()} ${currency}`);
    }
    const sum = sums.get(currency);
    sums.set(currency, sum ? sum.plus(amount) : amount);
  }
  for (const [currency, sum] of sums) {
    if (!sum.isZero()) throw new Error(`ledger entry does not balance in ${currency}: ${sum.toFixed()}`);
  }
}

/**
 * The entry checked and turned into the arguments of the SQL function ledger_post_entry
 * (migration 010), which writes the entry, its postings and the balances in one round trip.
 * Postings go sorted by (owner, currency): the function locks balance rows in that order, so
 * two entries cannot deadlock. A module writing a movement inside its own statement calls the
 * function with these and turns errors with `ledgerRefusal`; everyone else calls postEntry.
 */
export function entryArguments(entry: NewEntry): EntryArguments {
  assertWellFormed(entry.postings);
  const postings = [...entry.postings].sort(byOwnerAndCurrency);
  return {
    kind: entry.kind,
    reference: entry.reference ?? null,
    memo: entry.memo ?? null,
    owners: postings.map((p) => p.owner),
    currencies: postings.map((p) => p.currency),
    amounts: postings.map((p) => p.amount.toFixed()),
  };
}

/**
 * Several entries, each checked by entryArguments, as the arguments of ledger_post_entries
 * (migration 010), for a module that writes many movements in one statement (concurrent
 * transfers): the postings of all of them sorted by (owner, currency), each naming its entry,
 * in entry order within one (owner, currency) (the sort is stable).
 */
export function combinedEntries(entries: EntryArguments[]): EntriesArguments {
  const postings: { entry: number; owner: string; currency: string; amount: string }[] = [];
  entries.forEach((entry, index) => {
    entry.owners.forEach((owner, i) => {
      postings.push({ entry: index + 1, owner, currency: entry.currencies[i]!, amount: entry.amounts[i]! });
    });
  });
  postings.sort(byOwnerAndCurrency);
  return {
    kinds: entries.map((e) => e.kind),
    references: entries.map((e) => e.reference),
    memos: entries.map((e) => e.memo),
    postingEntries: postings.map((p) => p.entry),
    owners: postings.map((p) => p.owner),
    currencies: postings.map((p) => p.currency),
    amounts: postings.map((p) => p.amount),
  };
}

/**
 * The order ledger_post_entries locks balances in: (owner, currency) by code unit, which is the
 * byte order of PostgreSQL's "C" collation for the ASCII of SRNs and currency codes.
 */
function byOwnerAndCurrency(
  a: { owner: string; currency: string },
  b: { owner: string; currency: string },
): number {
  if (a.owner !== b.owner) return a.owner < b.owner ? -1 : 1;
  return a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0;
}

/** A hold checked and turned into the arguments of ledger_place_hold (migration 010). */
export function holdArguments(hold: NewHold): HoldArguments {
  if (hold.amount.lte(0) || hold.amount.decimalPlaces() > currencyScale(hold.currency)) {
    throw new Error(`malformed hold ${hold.amount.toFixed()} ${hold.currency}`);
  }
  return {
    owner: hold.owner,
    currency: hold.currency,
    amount: hold.amount.toFixed(),
    expiresAt: new Date(hold.expiresAtMs),
    reference: hold.reference ?? null,
  };
}

/**
 * The partner-facing error for the ledger's refusals in the database: an overdraft (a balance
 * CHECK) is InsufficientFundsException, a hold no longer pending (SQLSTATE RL001 of
 * ledger_lock_pending_hold) ledger.holdNotPending; anything else is returned unchanged.
 */
export function ledgerRefusal(error: unknown): unknown {
  if (isOverdraft(error)) return ledgerErrors.insufficientFunds();
  if ((error as { code?: string }).code === HOLD_NOT_PENDING) return ledgerErrors.holdNotPending();
  return error;
}

const HOLD_NOT_PENDING = 'RL001';

async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw ledgerRefusal(error);
  }
}

export function postEntry(q: Queryable, entry: NewEntry): Promise<number> {
  return refusing(() => ledgerPostEntry(q, entryArguments(entry)));
}

export interface NewHold {
  owner: string;
  currency: string;
  amount: Money;
  expiresAtMs: number;
  reference?: string;
}

/** Reserves funds: available drops now (refused if it would go below zero), total when posted. */
export function placeHold(q: Queryable, hold: NewHold): Promise<number> {
  return refusing(() => ledgerPlaceHold(q, holdArguments(hold)));
}

/**
 * Settles a pending hold: its full amount leaves the holder for `to`. Exactly once: a hold
 * already posted or voided (or expired and voided) is refused.
 */
export function postHold(
  q: Queryable,
  holdId: number,
  settlement: { to: string; kind: string; memo?: string },
): Promise<number> {
  return refusing(() => ledgerPostHold(q, holdId, settlement.to, settlement.kind, settlement.memo ?? null));
}

/**
 * Settles a pending hold as a whole entry (fees and exchange legs besides the payee): the
 * holder's postings must take exactly the held amount in the held currency (the function
 * raises otherwise). Exactly once, like postHold; the hold is locked before any balance, the
 * order every hold path uses.
 */
export function settleHold(q: Queryable, holdId: number, entry: NewEntry): Promise<number> {
  return refusing(() => ledgerSettleHold(q, holdId, entryArguments(entry)));
}

/** Releases a pending hold back to available; exactly once, like postHold. */
export function voidHold(q: Queryable, holdId: number): Promise<void> {
  return refusing(() => ledgerVoidHold(q, holdId));
}

/** One owner's movements in a period, per entry reference, kind and currency (signed sums). */
export interface OwnerMovement {
  reference: string | null;
  kind: string;
  currency: string;
  amount: Money;
}

export async function movementsOf(
  q: Queryable,
  owner: string,
  range: { fromMs: number; toMs: number },
): Promise<OwnerMovement[]> {
  const rows = await ownerMovements(q, owner, range.fromMs, range.toMs);
  return rows.map((row) => ({
    reference: row.reference,
    kind: row.kind,
    currency: row.currency,
    amount: new Money(row.total),
  }));
}

/**
 * An owner's pending holds (id and reference) that expire by `byMs`, soonest first: what its
 * module must settle before they do (card orders' authorizations).
 */
export function holdsExpiringBy(
  q: Queryable,
  owner: string,
  byMs: number,
  limit: number,
): Promise<{ id: number; reference: string | null }[]> {
  return pendingHoldsExpiringBy(q, owner, byMs, limit);
}

/** Pending holds past their expiry, for a worker to void one transaction each. */
export function holdsDueForExpiry(q: Queryable, nowMs: number, limit = 100): Promise<number[]> {
  return expiredHoldIds(q, nowMs, limit);
}

export interface Balances {
  totalBalances: Record<string, Money>;
  availableBalances: Record<string, Money>;
}

/** Wyre's totalBalances (including pending holds) and availableBalances (excluding them). */
export async function balancesOf(q: Queryable, owner: string): Promise<Balances> {
  return balancesFrom(await balanceRows(q, owner));
}

/**
 * One owner's balances as the SQL function `ledger_balances_json_of(owners)` (migration 015)
 * returns them: another module's query calls it to bring the balances of every owner it reads
 * back in its own round trip.
 */
export type BalancesJson = [currency: string, total: string, available: string][];

export function balancesFromJson(rows: BalancesJson): Balances {
  return balancesFrom(rows.map(([currency, total, available]) => ({ currency, total, available })));
}

function balancesFrom(rows: { currency: string; total: string; available: string }[]): Balances {
  const balances: Balances = { totalBalances: {}, availableBalances: {} };
  for (const row of rows) {
    balances.totalBalances[row.currency] = new Money(row.total);
    balances.availableBalances[row.currency] = new Money(row.available);
  }
  return balances;
}

/** Conservation and recomputation: both lists must be empty in a healthy ledger. */
export async function auditLedger(q: Queryable) {
  return { unbalancedCurrencies: await unbalancedCurrencies(q), driftedBalances: await driftedBalances(q) };
}

/** What the ledger owes per currency, by kind of owner (a chain's reconciliation reads it). */
export interface CurrencyTotals {
  currency: string;
  /** Every owner but `house:` and `external:` ones. */
  customers: Money;
  /** `house:inventory`: the operator's coin for card-order deliveries. */
  inventory: Money;
  /** Every other `house:` owner. */
  house: Money;
  external: Money;
}

export async function totalsByCurrency(
  q: Queryable,
  currencies: readonly string[],
): Promise<CurrencyTotals[]> {
  const rows = await currencyTotals(q, currencies);
  return rows.map((row) => ({
    currency: row.currency,
    customers: new Money(row.customers),
    inventory: new Money(row.inventory),
    house: new Money(row.house),
    external: new Money(row.external),
  }));
}
