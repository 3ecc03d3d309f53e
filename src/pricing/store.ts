import type { Queryable } from '../platform/db/pool.ts';

/**
 * SQL for pricing's tables (migrations/004_pricing.sql). Prices are NUMERIC and come back as text.
 *
 * Pricing's database function: pricing_bump_generation, the trigger that counts every write to
 * the prices or the fee schedule (migration 080); other domains check the count through
 * atCurrentGeneration.
 */

export interface PricingSettingsRow {
  generation: number;
  schedule: unknown | null;
  /** The reference table, `{BTC: "60000"}`; null when it has no rows. */
  prices: Record<string, string> | null;
}

/**
 * The fee schedule, the reference prices and the generation they are at, in one statement: one
 * snapshot, so the generation is exactly that of what is read with it (migrations/012).
 */
export async function readPricingSettings(q: Queryable): Promise<PricingSettingsRow> {
  const { rows } = await q.query<PricingSettingsRow>(
    `SELECT g.generation,
       (SELECT schedule FROM fee_schedule WHERE id) AS schedule,
       (SELECT json_object_agg(currency, usd_price::text) FROM reference_prices) AS prices
     FROM pricing_generation g WHERE g.id`,
  );
  const row = rows[0];
  if (!row) throw new Error('pricing_generation has no row (migration 012)');
  return row;
}

/**
 * A join another domain's statement adds to keep only its rows whose `generation` (the SQL of the
 * pricing generation they were quoted at) is the current one: a write that lost a race with a
 * change of prices or fees stores nothing.
 */
export function atCurrentGeneration(generation: string): string {
  return `JOIN pricing_generation g ON g.id AND g.generation = ${generation}`;
}

export async function readReferencePrices(q: Queryable): Promise<{ currency: string; usd_price: string }[]> {
  const { rows } = await q.query<{ currency: string; usd_price: string }>(
    'SELECT currency, usd_price FROM reference_prices ORDER BY currency',
  );
  return rows;
}

export async function upsertReferencePrices(q: Queryable, prices: { currency: string; usdPrice: string }[]) {
  await q.query(
    `INSERT INTO reference_prices (currency, usd_price)
     SELECT * FROM unnest($1::text[], $2::numeric[])
     ON CONFLICT (currency) DO UPDATE SET usd_price = EXCLUDED.usd_price, updated_at = now()`,
    [prices.map((price) => price.currency), prices.map((price) => price.usdPrice)],
  );
}

export async function writeFeeSchedule(q: Queryable, schedule: unknown) {
  await q.query(
    `INSERT INTO fee_schedule (id, schedule) VALUES (true, $1)
     ON CONFLICT (id) DO UPDATE SET schedule = EXCLUDED.schedule, updated_at = now()`,
    [JSON.stringify(schedule)],
  );
}
