import type { Queryable, Tx } from '../platform/db/pool.ts';
import { currencyScale, Money } from '../platform/money.ts';
import { isOverdraft, ledgerErrors } from './errors.ts';
import {
  addToBalance,
  balanceRows,
  driftedBalances,
  expiredHoldIds,
  insertEntry,
  insertHold,
  insertPostings,
  lockPendingHold,
  resolveHold,
  unbalancedCurrencies,
} from './store.ts';

/**
 * The double-entry core. Every movement is one journal entry whose postings sum to zero per
 * currency; balances change in the same transaction; holds reserve available funds and are
 * posted or voided exactly once. No HTTP here: transfers, card orders and operator credits call
 * these functions with their own transaction.
 *
 * Owners are SRNs: `account:AC_…`, `user:US_…`, and the system owners `external:card`,
 * `external:chain:<chain>`, `external:bank`, `house:fx`, `house:fees` (which may go negative).
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

const key = (owner: string, currency: string) => `${owner}\u0000${currency}`;

/** Programming errors, not partner errors: an unbalanced entry is a bug in the caller. */
function assertWellFormed(postings: Posting[]): void {
  if (postings.length < 2) throw new Error('a ledger entry needs at least two postings');
  const sums = new Map<string, Money>();
  for (const { owner, currency, amount } of postings) {
    if (!owner || amount.isZero() || amount.decimalPlaces() > currencyScale(currency)) {
      throw new Error(`malformed posting ${owner} ${amount.toFixed()} ${currency}`);
    }
    sums.set(currency, (sums.get(currency) ?? new Money(0)).plus(amount));
  }
  for (const [currency, sum] of sums) {
    if (!sum.isZero()) throw new Error(`ledger entry does not balance in ${currency}: ${sum.toFixed()}`);
  }
}

/**
 * Net change per (owner, currency), in a fixed order so that two transactions touching the same
 * balances lock them in the same order and cannot deadlock.
 */
function balanceDeltas(postings: Posting[]) {
  const deltas = new Map<string, { owner: string; currency: string; amount: Money }>();
  for (const { owner, currency, amount } of postings) {
    const current = deltas.get(key(owner, currency));
    deltas.set(key(owner, currency), {
      owner,
      currency,
      amount: (current?.amount ?? new Money(0)).plus(amount),
    });
  }
  return [...deltas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, delta]) => delta);
}

/** Turns the database's refusal of an overdraft into the partner-facing error. */
async function refusingOverdraft<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isOverdraft(error)) throw ledgerErrors.insufficientFunds();
    throw error;
  }
}

/**
 * Writes an entry and moves the balances. `reserved` lists (owner, currency) amounts already
 * taken from `available` by a hold that this entry settles, so available is not debited twice.
 */
async function writeEntry(tx: Tx, entry: NewEntry, reserved?: Posting): Promise<number> {
  assertWellFormed(entry.postings);
  const entryId = await insertEntry(tx, entry.kind, entry.reference ?? null, entry.memo ?? null);
  await insertPostings(
    tx,
    entryId,
    entry.postings.map((p) => ({ owner: p.owner, currency: p.currency, amount: p.amount.toFixed() })),
  );
  await refusingOverdraft(async () => {
    for (const delta of balanceDeltas(entry.postings)) {
      const released =
        reserved && reserved.owner === delta.owner && reserved.currency === delta.currency
          ? reserved.amount
          : new Money(0);
      await addToBalance(
        tx,
        delta.owner,
        delta.currency,
        delta.amount.toFixed(),
        delta.amount.plus(released).toFixed(),
      );
    }
  });
  return entryId;
}

export function postEntry(tx: Tx, entry: NewEntry): Promise<number> {
  return writeEntry(tx, entry);
}

export interface NewHold {
  owner: string;
  currency: string;
  amount: Money;
  expiresAtMs: number;
  reference?: string;
}

/** Reserves funds: available drops now (refused if it would go below zero), total when posted. */
export async function placeHold(tx: Tx, hold: NewHold): Promise<number> {
  if (hold.amount.lte(0) || hold.amount.decimalPlaces() > currencyScale(hold.currency)) {
    throw new Error(`malformed hold ${hold.amount.toFixed()} ${hold.currency}`);
  }
  const holdId = await insertHold(tx, {
    ...hold,
    amount: hold.amount.toFixed(),
    reference: hold.reference ?? null,
  });
  await refusingOverdraft(() =>
    addToBalance(tx, hold.owner, hold.currency, '0', hold.amount.negated().toFixed()),
  );
  return holdId;
}

/**
 * Settles a pending hold: its full amount leaves the holder for `to`. Exactly once: a hold
 * already posted or voided (or expired and voided) is refused.
 */
export async function postHold(
  tx: Tx,
  holdId: number,
  settlement: { to: string; kind: string; memo?: string },
) {
  const hold = await lockPendingHold(tx, holdId);
  if (!hold) throw ledgerErrors.holdNotPending();
  const amount = new Money(hold.amount);
  const entryId = await writeEntry(
    tx,
    {
      kind: settlement.kind,
      ...(hold.reference ? { reference: hold.reference } : {}),
      ...(settlement.memo ? { memo: settlement.memo } : {}),
      postings: [
        { owner: hold.owner, currency: hold.currency, amount: amount.negated() },
        { owner: settlement.to, currency: hold.currency, amount },
      ],
    },
    { owner: hold.owner, currency: hold.currency, amount },
  );
  await resolveHold(tx, holdId, 'posted', entryId);
  return entryId;
}

/**
 * Settles a pending hold as a whole entry (fees and exchange legs besides the payee): the
 * holder's posting must take exactly the held amount in the held currency. Exactly once, like
 * postHold; the hold is locked before any balance, the order every hold path uses.
 */
export async function settleHold(tx: Tx, holdId: number, entry: NewEntry): Promise<number> {
  const hold = await lockPendingHold(tx, holdId);
  if (!hold) throw ledgerErrors.holdNotPending();
  const amount = new Money(hold.amount);
  const taken = entry.postings
    .filter((p) => p.owner === hold.owner && p.currency === hold.currency)
    .reduce((sum, p) => sum.plus(p.amount), new Money(0));
  if (!taken.negated().eq(amount)) {
    throw new Error(`hold ${holdId} holds ${hold.amount} but the entry takes ${taken.negated().toFixed()}`);
  }
  const entryId = await writeEntry(tx, entry, { owner: hold.owner, currency: hold.currency, amount });
  await resolveHold(tx, holdId, 'posted', entryId);
  return entryId;
}

/** Releases a pending hold back to available; exactly once, like postHold. */
export async function voidHold(tx: Tx, holdId: number): Promise<void> {
  const hold = await lockPendingHold(tx, holdId);
  if (!hold) throw ledgerErrors.holdNotPending();
  await addToBalance(tx, hold.owner, hold.currency, '0', hold.amount);
  await resolveHold(tx, holdId, 'voided', null);
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
 * What the SQL function `ledger_balances_json(owner)` (migration 013) returns: another module's
 * query calls it to bring an owner's balances back in its own round trip.
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
