import type { Queryable } from '../platform/db/pool.ts';

/** The SQL of the ledger tables; rules live in service.ts. Amounts travel as decimal text. */

export async function insertEntry(q: Queryable, kind: string, reference: string | null, memo: string | null) {
  const { rows } = await q.query<{ id: number }>(
    'INSERT INTO ledger_entries (kind, reference, memo) VALUES ($1, $2, $3) RETURNING id',
    [kind, reference, memo],
  );
  return rows[0]!.id;
}

export async function insertPostings(
  q: Queryable,
  entryId: number,
  postings: { owner: string; currency: string; amount: string }[],
) {
  await q.query(
    `INSERT INTO ledger_postings (entry_id, owner, currency, amount)
     SELECT $1, owner, currency, amount::numeric
     FROM unnest($2::text[], $3::text[], $4::text[]) AS p(owner, currency, amount)`,
    [entryId, postings.map((p) => p.owner), postings.map((p) => p.currency), postings.map((p) => p.amount)],
  );
}

/**
 * Adds to a balance row, creating it at zero first; the table's CHECKs refuse an overdraft.
 * Two statements on purpose: INSERT … ON CONFLICT checks constraints on the proposed row before
 * resolving the conflict, so a debit's negative delta would be refused even with funds present.
 */
export async function addToBalance(
  q: Queryable,
  owner: string,
  currency: string,
  totalDelta: string,
  availableDelta: string,
) {
  await q.query(
    'INSERT INTO ledger_balances (owner, currency) VALUES ($1, $2) ON CONFLICT (owner, currency) DO NOTHING',
    [owner, currency],
  );
  await q.query(
    `UPDATE ledger_balances SET total = total + $3::numeric, available = available + $4::numeric, updated_at = now()
     WHERE owner = $1 AND currency = $2`,
    [owner, currency, totalDelta, availableDelta],
  );
}

export interface HoldRow {
  id: number;
  owner: string;
  currency: string;
  amount: string;
  state: 'pending' | 'posted' | 'voided';
  reference: string | null;
  expires_at: Date;
}

export async function insertHold(
  q: Queryable,
  hold: { owner: string; currency: string; amount: string; reference: string | null; expiresAtMs: number },
) {
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO ledger_holds (owner, currency, amount, reference, expires_at)
     VALUES ($1, $2, $3::numeric, $4, to_timestamp($5 / 1000.0)) RETURNING id`,
    [hold.owner, hold.currency, hold.amount, hold.reference, hold.expiresAtMs],
  );
  return rows[0]!.id;
}

/** Locks a hold that is still pending; undefined when it was already resolved (or never existed). */
export async function lockPendingHold(q: Queryable, holdId: number) {
  const { rows } = await q.query<HoldRow>(
    `SELECT id, owner, currency, amount, state, reference, expires_at FROM ledger_holds
     WHERE id = $1 AND state = 'pending' FOR UPDATE`,
    [holdId],
  );
  return rows[0];
}

export async function resolveHold(
  q: Queryable,
  holdId: number,
  state: 'posted' | 'voided',
  entryId: number | null,
) {
  await q.query(`UPDATE ledger_holds SET state = $2, resolved_at = now(), entry_id = $3 WHERE id = $1`, [
    holdId,
    state,
    entryId,
  ]);
}

export async function expiredHoldIds(q: Queryable, nowMs: number, limit: number) {
  const { rows } = await q.query<{ id: number }>(
    `SELECT id FROM ledger_holds WHERE state = 'pending' AND expires_at <= to_timestamp($1 / 1000.0)
     ORDER BY expires_at LIMIT $2`,
    [nowMs, limit],
  );
  return rows.map((row) => row.id);
}

export async function balanceRows(q: Queryable, owner: string) {
  const { rows } = await q.query<{ currency: string; total: string; available: string }>(
    'SELECT currency, total, available FROM ledger_balances WHERE owner = $1 ORDER BY currency',
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
     FROM ledger_balances b FULL JOIN expected e ON e.owner = b.owner AND e.currency = b.currency
     WHERE coalesce(b.total, 0) <> coalesce(e.total, 0) OR coalesce(b.available, 0) <> coalesce(e.available, 0)`,
  );
  return rows;
}
