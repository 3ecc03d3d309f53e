import { rowsInInputOrder } from '../platform/db/grouped-writer.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { atCurrentGeneration, type Quote, type RateDerivation } from '../pricing/index.ts';
import type { StoredRequest } from './reservation-request.ts';

/**
 * SQL for reservations (migrations/004_pricing.sql) and their single uses (029_reservation_uses.sql:
 * a reservation is written once; its use is a row of its own). Every query is filtered by the
 * acting partner.
 */

export interface ReservationRow {
  id: string;
  partner_id: string;
  account_id: string;
  request: StoredRequest;
  quote_locked: boolean;
  source_currency: string | null;
  dest_currency: string | null;
  source_amount: string | null;
  source_amount_without_fees: string | null;
  dest_amount: string | null;
  exchange_rate: string | null;
  fees: Record<string, string> | null;
  equivalencies: Record<string, string> | null;
  rate_derivation: RateDerivation | null;
  created_at: Date;
  expires_at: Date;
}

/** What using a reservation reads of it (an order's quote and request): its row without the rest. */
export type UsableReservationRow = Omit<
  ReservationRow,
  'partner_id' | 'rate_derivation' | 'created_at' | 'expires_at'
>;

const USABLE_COLUMNS = `r.id, r.account_id, r.request, r.quote_locked, r.source_currency, r.dest_currency,
  r.source_amount, r.source_amount_without_fees, r.dest_amount, r.exchange_rate, r.fees, r.equivalencies`;

export interface NewReservation {
  id: string;
  partnerId: string;
  accountId: string;
  request: StoredRequest;
  quote: Quote | undefined;
  derivation: RateDerivation | undefined;
  /** The pricing generation the request was checked and quoted at (migrations/012). */
  pricingGeneration: number;
  createdAtMs: number;
  expiresAtMs: number;
}

/**
 * `{"USD":"3.2","ETH":"0.0004"}`: a currency map's exact decimal texts, as the jsonb columns hold
 * them. Keys are currency codes (A–Z) and values decimal digits, so nothing needs escaping.
 */
function decimalMap(map: Record<string, { toFixed(): string }>): string {
  let json = '';
  for (const code in map) json += `${json ? ',' : '{'}"${code}":"${map[code]!.toFixed()}"`;
  return json ? `${json}}` : '{}';
}

/** One reservation's columns, in insertReservations' parameter order. */
function reservationColumns(r: NewReservation): unknown[] {
  const quote = r.quote;
  return [
    r.id,
    r.partnerId,
    r.accountId,
    JSON.stringify(r.request),
    quote !== undefined,
    quote?.sourceCurrency ?? null,
    quote?.destCurrency ?? null,
    quote?.sourceAmount.toFixed() ?? null,
    quote?.sourceAmountWithoutFees.toFixed() ?? null,
    quote?.destAmount.toFixed() ?? null,
    quote?.exchangeRate.toFixed() ?? null,
    quote ? decimalMap(quote.fees) : null,
    quote ? decimalMap(quote.equivalencies) : null,
    r.derivation ? JSON.stringify(r.derivation) : null,
    r.createdAtMs,
    r.expiresAtMs,
    r.pricingGeneration,
  ];
}

const COLUMN_TYPES = [
  'text',
  'text',
  'text',
  'jsonb',
  'boolean',
  'text',
  'text',
  'numeric',
  'numeric',
  'numeric',
  'numeric',
  'jsonb',
  'jsonb',
  'jsonb',
  'bigint',
  'bigint',
  'bigint',
];

/**
 * One statement for many reservations (concurrent requests, see groupedReservations in
 * service.ts), alone (autocommit) or in the caller's transaction. It stores a row only if the
 * pricing generation is still the one its request was checked and quoted at, and says for each
 * whether it did: false means the prices or fees changed since this process read them (another
 * process's PUT), and the caller quotes again.
 */
export async function insertReservations(
  q: Queryable,
  reservations: readonly NewReservation[],
): Promise<boolean[]> {
  const columns = COLUMN_TYPES.map(() => [] as unknown[]);
  for (const reservation of reservations)
    reservationColumns(reservation).forEach((value, index) => {
      columns[index]!.push(value);
    });
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO reservations (id, partner_id, account_id, request, quote_locked, source_currency, dest_currency,
       source_amount, source_amount_without_fees, dest_amount, exchange_rate, fees, equivalencies, rate_derivation,
       created_at, expires_at)
     SELECT r.id, r.partner_id, r.account_id, r.request, r.quote_locked, r.source_currency, r.dest_currency,
       r.source_amount, r.source_amount_without_fees, r.dest_amount, r.exchange_rate, r.fees, r.equivalencies,
       r.rate_derivation, to_timestamp(r.created_ms / 1000.0), to_timestamp(r.expires_ms / 1000.0)
     FROM unnest(${COLUMN_TYPES.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})
          AS r(id, partner_id, account_id, request, quote_locked, source_currency, dest_currency, source_amount,
               source_amount_without_fees, dest_amount, exchange_rate, fees, equivalencies, rate_derivation,
               created_ms, expires_ms, generation)
     ${atCurrentGeneration('r.generation')}
     RETURNING id`,
    columns,
  );
  const stored = new Set(rows.map((row) => row.id));
  return reservations.map((reservation) => stored.has(reservation.id));
}

/**
 * Visible to the partner's master (its whole tree) and to the account that made it; everyone
 * else sees no row, exactly as for an unknown id.
 */
const VISIBLE = 'id = $1 AND partner_id = $2 AND (partner_id = $3 OR account_id = $3)';

export async function findReservation(q: Queryable, partnerId: string, accountId: string, id: string) {
  const { rows } = await q.query<ReservationRow>(`SELECT * FROM reservations WHERE ${VISIBLE}`, [
    id,
    partnerId,
    accountId,
  ]);
  return rows[0];
}

/** A card order's reference to the reservation it uses, as its caller sees it. */
export interface ReservationUse {
  id: string;
  partnerId: string;
  accountId: string;
}

/**
 * Single use (DESIGN.md "Consistency"), for one order (consumeReservation passes one) or for
 * orders placed together (one transaction): uses each reservation that is visible to its caller,
 * unused and unexpired, and answers it (undefined for the others), in one statement. The use is a
 * reservation_uses row, whose primary key lets exactly one of any number of concurrent uses
 * insert it (the others wait for that transaction, then insert nothing, or their own if it rolled
 * back). Rows are inserted in id order, so two groups sharing reservations cannot deadlock. A use
 * whose order does not go ahead rolls back with the order's transaction.
 */
export async function useReservations(
  q: Queryable,
  uses: readonly ReservationUse[],
  nowMs: number,
): Promise<(UsableReservationRow | undefined)[]> {
  const { rows } = await q.query<UsableReservationRow & { ord: number }>(
    `WITH usable AS MATERIALIZED (
       SELECT ${USABLE_COLUMNS}, u.ord::int AS ord
       FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(id, partner_id, account_id, ord)
       JOIN reservations r ON r.id = u.id AND r.partner_id = u.partner_id
         AND (r.partner_id = u.account_id OR r.account_id = u.account_id)
       -- id = ANY: primary-key probes whatever the (generic) plan thinks of unnest's row count.
       WHERE r.id = ANY($1::text[]) AND r.expires_at > to_timestamp($4::bigint / 1000.0)
     ),
     used AS (
       INSERT INTO reservation_uses (reservation_id, used_at)
       SELECT id, to_timestamp($4::bigint / 1000.0) FROM usable ORDER BY id
       ON CONFLICT DO NOTHING
       RETURNING reservation_id
     )
     SELECT usable.* FROM usable JOIN used ON used.reservation_id = usable.id`,
    [uses.map((use) => use.id), uses.map((use) => use.partnerId), uses.map((use) => use.accountId), nowMs],
  );
  return rowsInInputOrder(rows, uses.length);
}

/**
 * Uses a reservation up without an order (the hosted checkout's, once too many cards were
 * declined on it). A use already there is left alone; one an order is making is waited for.
 */
export async function useReservationUp(q: Queryable, id: string, nowMs: number): Promise<void> {
  await q.query(
    `INSERT INTO reservation_uses (reservation_id, used_at) VALUES ($1, to_timestamp($2::bigint / 1000.0))
     ON CONFLICT DO NOTHING`,
    [id, nowMs],
  );
}

/**
 * For the hosted checkout page only: it has no caller, the reservation id (20 random characters)
 * is the capability, and the page checks the link's accountId against the row itself.
 */
export async function findReservationById(q: Queryable, id: string) {
  const { rows } = await q.query<ReservationRow & { used: boolean }>(
    `SELECT r.*, EXISTS (SELECT 1 FROM reservation_uses WHERE reservation_id = r.id) AS used
     FROM reservations r WHERE r.id = $1`,
    [id],
  );
  return rows[0];
}
