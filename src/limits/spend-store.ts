import type { Queryable } from '../platform/db/pool.ts';

/** SQL for card spend (migrations/008_cards.sql): rows per (order, key) and per-day buckets. */

const DAY_MS = 24 * 3600 * 1000;

/** UTC day of an instant, as 'YYYY-MM-DD'. */
function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Spent since each of `startsMs` for each key, in one round trip: per key, whole days after the
 * start's day from the buckets, plus the rows of the start's own day from `startMs` on. Spend is
 * never recorded after "now" (the service clock only moves forward), so no upper bound is needed.
 * Cost is flat in the number of orders: at most 366 bucket rows and one day's rows per key.
 * Answers one row of sums (in `startsMs` order) per key.
 */
const WINDOW_SUM = (n: number) => `(
    (SELECT COALESCE(sum(amount_usd), 0) FROM card_spend_days WHERE spend_key = k.key AND day > $${n}::date)
  + (SELECT COALESCE(sum(amount_usd), 0) FROM card_spend
      WHERE spend_key = k.key AND at >= to_timestamp($${n + 1}::bigint / 1000.0)
        AND at < to_timestamp($${n + 2}::bigint / 1000.0)))`;

export async function spentSince(
  q: Queryable,
  keys: readonly string[],
  startsMs: readonly number[],
): Promise<string[][]> {
  const params: unknown[] = [keys];
  const columns = startsMs.map((startMs, index) => {
    const dayStartMs = Date.parse(`${dayOf(startMs)}T00:00:00Z`);
    params.push(dayOf(startMs), startMs, dayStartMs + DAY_MS);
    return `${WINDOW_SUM(2 + index * 3)} AS w${index}`;
  });
  const { rows } = await q.query<Record<string, string>>(
    `SELECT ${columns.join(', ')} FROM unnest($1::text[]) AS k(key)`,
    params,
  );
  return rows.map((row) => startsMs.map((_, index) => row[`w${index}`]!));
}

/**
 * Serialises every order touching this key until the caller's transaction ends. Callers take
 * their keys in sorted order, so two orders sharing keys cannot deadlock.
 */
export async function lockSpendKey(q: Queryable, key: string): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 8008))', [`card-spend:${key}`]);
}

/**
 * Records one order's spend under each key: its row, and its share of each key's day bucket.
 * Buckets are written in key order, the order deleteSpend uses, so the two cannot deadlock.
 */
export async function insertSpend(
  q: Queryable,
  orderId: string,
  keys: readonly string[],
  amountUsd: string,
  atMs: number,
): Promise<void> {
  await q.query(
    `INSERT INTO card_spend (order_id, spend_key, amount_usd, at)
     SELECT $1, key, $3, to_timestamp($4::bigint / 1000.0) FROM unnest($2::text[]) AS k(key)`,
    [orderId, keys, amountUsd, atMs],
  );
  await q.query(
    `INSERT INTO card_spend_days (spend_key, day, amount_usd)
     SELECT key, $2::date, $3 FROM unnest($1::text[]) AS k(key) ORDER BY key COLLATE "C"
     ON CONFLICT (spend_key, day) DO UPDATE SET amount_usd = card_spend_days.amount_usd + EXCLUDED.amount_usd`,
    [keys, dayOf(atMs), amountUsd],
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
