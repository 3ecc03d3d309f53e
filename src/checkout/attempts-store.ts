import type { Db, Queryable } from '../platform/db/pool.ts';

/**
 * SQL for the hosted checkout's card attempts (migrations/034_checkout_card_attempts.sql): a row
 * per attempt refused by the card processor, or still waiting for its answer.
 */

export interface NewAttempt {
  reservationId: string;
  partnerId: string;
  fingerprint: string;
  client: string;
  atMs: number;
}

export interface AttemptCaps {
  perReservation: number;
  perCardPerHour: number;
  perIpPerHour: number;
}

/** Which cap refused an attempt; for the hourly ones, when the oldest attempt it counted was. */
export type CapReached = { cap: 'reservation' } | { cap: 'card' | 'client'; oldestCountedMs: number };

const HOUR_MS = 3600 * 1000;

/** Records the attempt and answers its id, unless a cap is reached (checkout_attempt_begin). */
export async function beginAttempt(
  q: Queryable,
  attempt: NewAttempt,
  caps: AttemptCaps,
): Promise<{ id: number } | { refused: CapReached }> {
  const { rows } = await q.query<{
    attempt_id: number | null;
    refused: string | null;
    oldest_ms: number | null;
  }>(
    `SELECT attempt_id, refused, (extract(epoch FROM oldest_counted) * 1000)::bigint AS oldest_ms
     FROM checkout_attempt_begin($1, $2, $3, $4, to_timestamp($5::bigint / 1000.0), to_timestamp($6::bigint / 1000.0),
       $7, $8, $9)`,
    [
      attempt.reservationId,
      attempt.partnerId,
      attempt.fingerprint,
      attempt.client,
      attempt.atMs,
      attempt.atMs - HOUR_MS,
      caps.perReservation,
      caps.perCardPerHour,
      caps.perIpPerHour,
    ],
  );
  const row = rows[0]!;
  if (row.attempt_id !== null) return { id: row.attempt_id };
  if (row.refused === 'reservation') return { refused: { cap: 'reservation' } };
  return { refused: { cap: row.refused as 'card' | 'client', oldestCountedMs: row.oldest_ms! } };
}

/** Records the processor's refusal; answers how many of the reservation's attempts it refused. */
export async function recordRefusal(
  q: Queryable,
  id: number,
  refusal: { errorCode: string; message: string },
): Promise<number> {
  const { rows } = await q.query<{ refused: number }>(
    'SELECT checkout_attempt_refused($1, $2, $3) AS refused',
    [id, refusal.errorCode, refusal.message],
  );
  return rows[0]!.refused;
}

/** An attempt that did not end in a refusal no longer counts. */
export async function deleteAttempt(q: Queryable, id: number): Promise<void> {
  await q.query('DELETE FROM checkout_card_attempts WHERE id = $1', [id]);
}

/** How many of the reservation's attempts the processor refused. */
export async function refusedAttemptsOf(q: Queryable, reservationId: string): Promise<number> {
  const { rows } = await q.query<{ refused: number }>(
    'SELECT count(*)::int AS refused FROM checkout_card_attempts WHERE reservation_id = $1 AND error_code IS NOT NULL',
    [reservationId],
  );
  return rows[0]!.refused;
}

export interface DeclinedAttempt {
  atMs: number;
  errorCode: string;
  message: string;
}

/** The reservation's attempts the processor refused, oldest first. */
export async function declinedAttemptsOf(q: Queryable, reservationId: string): Promise<DeclinedAttempt[]> {
  const { rows } = await q.query<{ at_ms: string; error_code: string; error_message: string }>(
    `SELECT (extract(epoch FROM at) * 1000)::bigint AS at_ms, error_code, error_message
     FROM checkout_card_attempts WHERE reservation_id = $1 AND error_code IS NOT NULL ORDER BY id`,
    [reservationId],
  );
  return rows.map((row) => ({
    atMs: Number(row.at_ms),
    errorCode: row.error_code,
    message: row.error_message,
  }));
}

/**
 * Housekeeping. Attempts a day old count for no cap (an hour, or a reservation's lifetime); a
 * refusal stays a month as the partner's record of why its buyer's card was declined.
 */
export async function purgeOldAttempts(db: Db): Promise<void> {
  await db.query(
    `DELETE FROM checkout_card_attempts
     WHERE at < now() - CASE WHEN error_code IS NULL THEN interval '1 day' ELSE interval '30 days' END`,
  );
}
