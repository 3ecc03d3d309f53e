import type { Queryable } from '../platform/db/pool.ts';

/** SQL for pricing's tables (migrations/004_pricing.sql). Prices are NUMERIC and come back as text. */

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

export async function readFeeSchedule(q: Queryable): Promise<unknown | undefined> {
  const { rows } = await q.query<{ schedule: unknown }>('SELECT schedule FROM fee_schedule WHERE id');
  return rows[0]?.schedule;
}

export async function writeFeeSchedule(q: Queryable, schedule: unknown) {
  await q.query(
    `INSERT INTO fee_schedule (id, schedule) VALUES (true, $1)
     ON CONFLICT (id) DO UPDATE SET schedule = EXCLUDED.schedule, updated_at = now()`,
    [JSON.stringify(schedule)],
  );
}
