import type { Param } from '../platform/db/parameters.ts';
import type { Queryable } from '../platform/db/pool.ts';

/**
 * The SQL of the ledger tables; rules live in service.ts. Amounts travel as decimal text.
 *
 * The ledger's database functions, called from here or, inside another domain's statement,
 * through the fragments below (placeHoldCall, placeHoldsCall, postEntryCall, postEntriesCall,
 * settleHoldCall, settleHoldsCall, balancesJsonOf):
 * ledger_post_entry, ledger_post_entries, ledger_place_hold, ledger_place_holds,
 * ledger_settle_hold, ledger_settle_holds, ledger_post_hold, ledger_void_hold,
 * ledger_balances_json_of; inside the database only: ledger_post_locked_hold,
 * ledger_lock_pending_hold, ledger_add_to_balance, ledger_balance_stripe, ledger_is_system_owner,
 * and the triggers' ledger_statement_balances and ledger_append_only.
 */

/**
 * ledger_post_entry's arguments (migration 010): an entry checked by the service, amounts as
 * decimal text. A module that writes a movement in its own statement passes these to the
 * function itself; the service's functions call the ones below.
 */
export interface EntryArguments {
  kind: string;
  reference: string | null;
  memo: string | null;
  owners: string[];
  currencies: string[];
  amounts: string[];
}

/**
 * ledger_post_entries's arguments (migration 010): several entries in one statement. Posting i
 * belongs to entry postingEntries[i] (1-based); postings are sorted by (owner, currency) across
 * all the entries.
 */
export interface EntriesArguments {
  kinds: string[];
  references: (string | null)[];
  memos: (string | null)[];
  postingEntries: number[];
  owners: string[];
  currencies: string[];
  amounts: string[];
}

const ENTRIES_TYPES = ['text[]', 'text[]', 'text[]', 'int[]', 'text[]', 'text[]', 'numeric[]'];

/**
 * ledger_post_entries's seven array arguments as SQL parameters `$first`…`$first+6`, typed, for
 * a module calling the function inside its own statement with entriesValues at that position.
 */
export function entriesParams(first: number): string {
  return ENTRIES_TYPES.map((type, index) => `$${first + index}::${type}`).join(', ');
}

/** The values of entriesParams' parameters, in their order. */
export function entriesValues(entries: EntriesArguments): unknown[] {
  const { kinds, references, memos, postingEntries, owners, currencies, amounts } = entries;
  return [kinds, references, memos, postingEntries, owners, currencies, amounts];
}

/** ledger_place_hold's arguments (migration 010). */
export interface HoldArguments {
  owner: string;
  currency: string;
  amount: string;
  expiresAt: Date;
  reference: string | null;
}

/**
 * `ledger_balances_json_of(owners)`: a row source another domain's read joins (`owner`, and
 * `balances` for balancesFromJson), so a row and its balances come back in one statement.
 * `owners` is the SQL of a text[] of owner SRNs.
 */
export function balancesJsonOf(owners: string): string {
  return `ledger_balances_json_of(${owners})`;
}

/**
 * `ledger_place_hold(…)` as an expression of another domain's statement, its value the new hold's
 * id: the hold is placed in the same statement as the row that refers to it.
 */
export function placeHoldCall(param: Param, hold: HoldArguments): string {
  return `ledger_place_hold(${param(hold.owner)}, ${param(hold.currency)}, ${param(hold.amount, '::numeric')},
         ${param(hold.expiresAt, '::timestamptz')}, ${param(hold.reference)})`;
}

/** `ledger_post_entries(…)` as an expression of another domain's statement, entriesValues at `$first`…. */
export function postEntriesCall(first: number): string {
  return `ledger_post_entries(${entriesParams(first)})`;
}

/**
 * `ledger_place_holds(…)` (migration 019) as an expression of another domain's statement, its
 * value the new holds' ids in order: `params` are the SQL of its five arrays (owners, currencies,
 * amounts, expiries, references).
 */
export function placeHoldsCall(params: readonly [string, string, string, string, string]): string {
  const [owners, currencies, amounts, expiries, references] = params;
  return `ledger_place_holds(${owners}::text[], ${currencies}::text[], ${amounts}::numeric[],
                              ${expiries}::timestamptz[], ${references}::text[])`;
}

/** `ledger_post_entry(…)` as an expression of another domain's statement, its six arguments at `$first`…. */
export function postEntryCall(first: number): string {
  return `ledger_post_entry(${entryParams(first)})`;
}

/** `ledger_settle_hold(…)`: hold `holdParam` settled by the entry whose six arguments start at `$first`. */
export function settleHoldCall(holdParam: string, first: number): string {
  return `ledger_settle_hold(${holdParam}::bigint, ${entryParams(first)})`;
}

/**
 * `ledger_settle_holds(…)` (migrations 020 and 066): hold i of the bigint[] `holdsParam` settled by
 * entry i of the entries at `$first`…, the entries after the holds' own posted as they are.
 */
export function settleHoldsCall(holdsParam: string, first: number): string {
  return `ledger_settle_holds(${holdsParam}::bigint[], ${entriesParams(first)})`;
}

/** One entry's six arguments (kind, reference, memo, owners, currencies, amounts) from `$first`. */
function entryParams(first: number): string {
  const at = (offset: number) => `$${first + offset}`;
  return `${at(0)}::text, ${at(1)}::text, ${at(2)}::text, ${at(3)}::text[], ${at(4)}::text[], ${at(5)}::numeric[]`;
}

/** The entry, its postings and the balances it moves, in one round trip; answers the entry id. */
export async function ledgerPostEntry(q: Queryable, entry: EntryArguments): Promise<number> {
  const { rows } = await q.query<{ id: number }>(
    'SELECT ledger_post_entry($1, $2, $3, $4::text[], $5::text[], $6::numeric[]) AS id',
    [entry.kind, entry.reference, entry.memo, entry.owners, entry.currencies, entry.amounts],
  );
  return rows[0]!.id;
}

export async function ledgerPlaceHold(q: Queryable, hold: HoldArguments): Promise<number> {
  const { rows } = await q.query<{ id: number }>(
    'SELECT ledger_place_hold($1, $2, $3::numeric, $4::timestamptz, $5) AS id',
    [hold.owner, hold.currency, hold.amount, hold.expiresAt, hold.reference],
  );
  return rows[0]!.id;
}

/** Settles a pending hold as a whole entry; SQLSTATE RL001 when it is not pending any more. */
export async function ledgerSettleHold(q: Queryable, holdId: number, entry: EntryArguments): Promise<number> {
  const { rows } = await q.query<{ id: number }>(
    'SELECT ledger_settle_hold($1, $2, $3, $4, $5::text[], $6::text[], $7::numeric[]) AS id',
    [holdId, entry.kind, entry.reference, entry.memo, entry.owners, entry.currencies, entry.amounts],
  );
  return rows[0]!.id;
}

/** Settles a pending hold to one payee; SQLSTATE RL001 when it is not pending any more. */
export async function ledgerPostHold(
  q: Queryable,
  holdId: number,
  payee: string,
  kind: string,
  memo: string | null,
) {
  const { rows } = await q.query<{ id: number }>('SELECT ledger_post_hold($1, $2, $3, $4) AS id', [
    holdId,
    payee,
    kind,
    memo,
  ]);
  return rows[0]!.id;
}

/** Releases a pending hold; SQLSTATE RL001 when it is not pending any more. */
export async function ledgerVoidHold(q: Queryable, holdId: number): Promise<void> {
  await q.query('SELECT ledger_void_hold($1)', [holdId]);
}

export async function expiredHoldIds(q: Queryable, nowMs: number, limit: number) {
  const { rows } = await q.query<{ id: number }>(
    `SELECT id FROM ledger_holds WHERE state = 'pending' AND expires_at <= to_timestamp($1 / 1000.0)
     ORDER BY expires_at LIMIT $2`,
    [nowMs, limit],
  );
  return rows.map((row) => row.id);
}

/**
 * One owner's pending holds expiring by `byMs`, soonest first, with their references: a walk of
 * the pending holds' expiry index (005's ledger_holds_pending), never of settled ones.
 */
export async function pendingHoldsExpiringBy(q: Queryable, owner: string, byMs: number, limit: number) {
  const { rows } = await q.query<{ id: string; reference: string | null }>(
    `SELECT id, reference FROM ledger_holds
     WHERE state = 'pending' AND expires_at <= to_timestamp($2::bigint / 1000.0) AND owner = $1
     ORDER BY expires_at LIMIT $3`,
    [owner, byMs, limit],
  );
  return rows.map((row) => ({ id: Number(row.id), reference: row.reference }));
}

export async function balanceRows(q: Queryable, owner: string) {
  const { rows } = await q.query<{ currency: string; total: string; available: string }>(
    // A system owner's balance is spread over stripes (migration 014); a customer's is one row.
    `SELECT currency, sum(total) AS total, sum(available) AS available
     FROM ledger_balances WHERE owner = $1 GROUP BY currency ORDER BY currency`,
    [owner],
  );
  return rows;
}

/** Currencies whose postings do not sum to zero over the whole ledger: must be none. */
export async function unbalancedCurrencies(q: Queryable) {
  const { rows } = await q.query<{ currency: string; sum: string }>(
    'SELECT currency, sum(amount) AS sum FROM ledger_postings GROUP BY currency HAVING sum(amount) <> 0',
  );
  return rows;
}

/** Balance rows that differ from what the postings and pending holds say they should be: must be none. */
export async function driftedBalances(q: Queryable) {
  const { rows } = await q.query<{
    owner: string;
    currency: string;
    total: string;
    expected_total: string;
    available: string;
    expected_available: string;
  }>(
    `WITH posted AS (SELECT owner, currency, sum(amount) AS total FROM ledger_postings GROUP BY owner, currency),
          held AS (SELECT owner, currency, sum(amount) AS held FROM ledger_holds WHERE state = 'pending'
                   GROUP BY owner, currency),
          expected AS (
            SELECT coalesce(p.owner, h.owner) AS owner, coalesce(p.currency, h.currency) AS currency,
                   coalesce(p.total, 0) AS total, coalesce(p.total, 0) - coalesce(h.held, 0) AS available
            FROM posted p FULL JOIN held h ON h.owner = p.owner AND h.currency = p.currency)
     SELECT coalesce(b.owner, e.owner) AS owner, coalesce(b.currency, e.currency) AS currency,
            coalesce(b.total, 0) AS total, coalesce(e.total, 0) AS expected_total,
            coalesce(b.available, 0) AS available, coalesce(e.available, 0) AS expected_available
     FROM (SELECT owner, currency, sum(total) AS total, sum(available) AS available
           FROM ledger_balances GROUP BY owner, currency) b
     FULL JOIN expected e ON e.owner = b.owner AND e.currency = b.currency
     WHERE coalesce(b.total, 0) <> coalesce(e.total, 0) OR coalesce(b.available, 0) <> coalesce(e.available, 0)`,
  );
  return rows;
}

/**
 * Per currency, the ledger's totals split by kind of owner: customers (every owner but the system
 * ones), `house:inventory`, the other `house:` owners, and the `external:` owners.
 */
export async function currencyTotals(q: Queryable, currencies: readonly string[]) {
  const { rows } = await q.query<{
    currency: string;
    customers: string;
    inventory: string;
    house: string;
    external: string;
  }>(
    `SELECT c.currency,
       coalesce(sum(b.total) FILTER (WHERE NOT ledger_is_system_owner(b.owner)), 0) AS customers,
       coalesce(sum(b.total) FILTER (WHERE b.owner = 'house:inventory'), 0) AS inventory,
       coalesce(sum(b.total) FILTER (WHERE b.owner LIKE 'house:%' AND b.owner <> 'house:inventory'), 0) AS house,
       coalesce(sum(b.total) FILTER (WHERE b.owner LIKE 'external:%'), 0) AS external
     FROM unnest($1::text[]) AS c(currency)
     LEFT JOIN ledger_balances b ON b.currency = c.currency
     GROUP BY c.currency ORDER BY c.currency`,
    [currencies],
  );
  return rows;
}

/**
 * What one owner's postings moved in a period, per entry reference, kind and currency. An
 * operator read (a reconciliation): system owners' postings have no index by owner, so it scans.
 */
export async function ownerMovements(q: Queryable, owner: string, fromMs: number, toMs: number) {
  const { rows } = await q.query<{ reference: string | null; kind: string; currency: string; total: string }>(
    `SELECT e.reference, e.kind, p.currency, sum(p.amount)::text AS total
     FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
     WHERE p.owner = $1 AND e.created_at >= to_timestamp($2::bigint / 1000.0)
       AND e.created_at < to_timestamp($3::bigint / 1000.0)
     GROUP BY e.reference, e.kind, p.currency`,
    [owner, fromMs, toMs],
  );
  return rows;
}
