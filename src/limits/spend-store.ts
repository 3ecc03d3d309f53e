import type { Queryable } from '../platform/db/pool.ts';

/** SQL for card spend (migrations/008_cards.sql): rows per (order, key) and per-day buckets. */

const DAY_MS = 24 * 3600 * 1000;

/** UTC day of an instant, as 'YYYY-MM-DD'. */
function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Spent since `startMs` for one key: whole days after the start's day from the buckets, plus the
 * rows of the start's own day from `startMs` on. Spend is never recorded after "now" (the service
 * clock only moves forward), so no upper bound is needed. Cost is flat in the number of orders:
 * at most 366 bucket rows and one day's rows.
 */
const WINDOW_SUM = (n: number) => `(
    (SELECT COALESCE(sum(amount_usd), 0) FROM card_spend_days WHERE spend_key = $1 AND day > $${n}::date)
  + (SELECT COALESCE(sum(amount_usd), 0) FROM card_spend
      WHERE spend_key = $1 AND at >= to_timestamp($${n + 1}::bigint / 1000.0)
        AND at < to_timestamp($${n + 2}::bigint / 1000.0)))`;

export async function spentSince(q: Queryable, key: string, startsMs: readonly number[]): Promise<string[]> {
  const params: unknown[] = [key];
  const columns = startsMs.map((startMs, index) => {
    const dayStartMs = Date.parse(`${dayOf(startMs)}T00:00:00Z`);
    params.push(dayOf(startMs), startMs, dayStartMs + DAY_MS);
    return `${WINDOW_SUM(2 + index * 3)} AS w${index}`;
  });
  const { rows } = await q.query<Record<string, string>>(`SELECT ${columns.join(', ')}`, params);
  return startsMs.map((_, index) => rows[0]![`w${index}`]!);
}

/**
 * Serialises every order touching this key until the caller's transaction ends. Callers take
 * their keys in sorted order, so two orders sharing keys cannot deadlock.
 */
export async function lockSpendKey(q: Queryable, key: string): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 8008))', [`card-spend:${key}`]);
}

export async function insertSpend(
  q: Queryable,
  orderId: string,
  key: string,
  amountUsd: string,
  atMs: number,
): Promise<void> {
  await q.query(
    `INSERT INTO card_spend (order_id, spend_key, amount_usd, at) VALUES ($1, $2, $3, to_timestamp($4::bigint / 1000.0))`,
    [orderId, key, amountUsd, atMs],
  );
  await q.query(
    `INSERT INTO card_spend_days (spend_key, day, amount_usd) VALUES ($1, $2::date, $3)
     ON CONFLICT (spend_key, day) DO UPDATE SET amount_usd = card_spend_days.amount_usd + EXCLUDED.amount_usd`,
    [key, dayOf(atMs), amountUsd],
  );
}

/** Removes an order's spend (rows and their share of the buckets); a repeat finds nothing. */
export async function deleteSpend(q: Queryable, orderId: string): Promise<void> {
  const { rows } = await q.query<{ spend_key: string; amount_usd: string; day: string }>(
    `DELETE FROM card_spend WHERE order_id = $1
     RETURNING spend_key, amount_usd, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day`,
    [orderId],
  );
  for (const row of rows.sort((a, b) => (a.spend_key < b.spend_key ? -1 : 1))) {
    await q.query(
      `UPDATE card_spend_days SET amount_usd = amount_usd - $3 WHERE spend_key = $1 AND day = $2::date`,
      [row.spend_key, row.day, row.amount_usd],
    );
    await q.query(`DELETE FROM card_spend_days WHERE spend_key = $1 AND day = $2::date AND amount_usd = 0`, [
      row.spend_key,
      row.day,
    ]);
  }
}
