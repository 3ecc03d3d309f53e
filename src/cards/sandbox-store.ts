import type { Queryable } from '../platform/db/pool.ts';

/**
 * The SQL of the sandbox card processor: its authorizations and, beyond them (migration 069),
 * refunds by Rampart's refund id and the disputes an operator opens. Amounts travel as decimal
 * text.
 */

/**
 * Refunds `amount` of a captured authorization once per `refundId`, in one statement: a repeat
 * finds its refund recorded and changes nothing; more than is left captured changes nothing
 * either. Answers whether the refund is recorded (now or before).
 */
export async function recordSandboxRefund(
  q: Queryable,
  refund: { refundId: string; orderId: string; amount: string },
): Promise<boolean> {
  const { rows } = await q.query<{ recorded: boolean }>(
    `WITH a AS (
       UPDATE sandbox_card_authorizations
       SET refunded = refunded + $3::numeric,
         state = CASE WHEN refunded + $3::numeric = amount THEN 'REFUNDED' ELSE state END, updated_at = now()
       WHERE order_id = $2 AND state = 'CAPTURED' AND refunded + $3::numeric <= amount
         AND NOT EXISTS (SELECT 1 FROM sandbox_card_refunds WHERE refund_id = $1)
       RETURNING order_id, currency
     ),
     r AS (
       INSERT INTO sandbox_card_refunds (refund_id, order_id, amount, currency)
       SELECT $1, a.order_id, $3::numeric, a.currency FROM a
       RETURNING refund_id
     )
     SELECT EXISTS (SELECT 1 FROM r) OR EXISTS (SELECT 1 FROM sandbox_card_refunds WHERE refund_id = $1) AS recorded`,
    [refund.refundId, refund.orderId, refund.amount],
  );
  return rows[0]!.recorded;
}

export interface SandboxDisputeRow {
  reference: string;
  order_id: string;
  amount: string;
  withdrawn: string;
  fee: string;
  currency: string;
  status: 'OPEN' | 'WON' | 'LOST';
}

/**
 * Opens the order's dispute on its captured charge (one per order): the whole charge disputed,
 * what the refunds left of it withdrawn. Answers the order's dispute, new or earlier; none when
 * nothing was captured.
 */
export async function openSandboxDispute(
  q: Queryable,
  dispute: { reference: string; orderId: string; fee: string },
): Promise<SandboxDisputeRow | undefined> {
  await q.query(
    `INSERT INTO sandbox_card_disputes (reference, order_id, amount, withdrawn, fee, currency, status)
     SELECT $1, order_id, amount, amount - refunded, $3::numeric, currency, 'OPEN'
     FROM sandbox_card_authorizations WHERE order_id = $2 AND state IN ('CAPTURED', 'REFUNDED')
     ON CONFLICT (order_id) DO NOTHING`,
    [dispute.reference, dispute.orderId, dispute.fee],
  );
  return sandboxDisputeOf(q, dispute.orderId);
}

/** Closes the order's open dispute as won or lost; answers the dispute as it now stands. */
export async function closeSandboxDispute(
  q: Queryable,
  orderId: string,
  status: 'WON' | 'LOST',
): Promise<SandboxDisputeRow | undefined> {
  await q.query(
    `UPDATE sandbox_card_disputes SET status = $2, closed_at = now() WHERE order_id = $1 AND status = 'OPEN'`,
    [orderId, status],
  );
  return sandboxDisputeOf(q, orderId);
}

async function sandboxDisputeOf(q: Queryable, orderId: string): Promise<SandboxDisputeRow | undefined> {
  const { rows } = await q.query<SandboxDisputeRow>(
    `SELECT reference, order_id, amount::text, withdrawn::text, fee::text, currency, status
     FROM sandbox_card_disputes WHERE order_id = $1`,
    [orderId],
  );
  return rows[0];
}

/** One movement of the sandbox's books, as the card reconciliation reads a processor's. */
export interface SandboxMovement {
  reference: string;
  type: 'charge' | 'refund' | 'dispute';
  order_id: string;
  amount: string;
  fee: string;
  currency: string;
  at_ms: string;
}

/**
 * The period's movements: captures, refunds, disputes opened (the amount withdrawn, the dispute
 * fee) and disputes won (the amount given back). An operator read: it scans the period.
 */
export async function sandboxMovements(
  q: Queryable,
  fromMs: number,
  toMs: number,
): Promise<SandboxMovement[]> {
  const { rows } = await q.query<SandboxMovement>(
    `WITH period AS (SELECT to_timestamp($1::bigint / 1000.0) AS f, to_timestamp($2::bigint / 1000.0) AS t)
     SELECT 'ch_sandbox_' || order_id AS reference, 'charge' AS type, order_id, amount::text, '0' AS fee,
       currency, (extract(epoch FROM captured_at) * 1000)::bigint::text AS at_ms
     FROM sandbox_card_authorizations, period WHERE captured_at >= period.f AND captured_at < period.t
     UNION ALL
     SELECT refund_id, 'refund', order_id, (-amount)::text, '0', currency,
       (extract(epoch FROM created_at) * 1000)::bigint::text
     FROM sandbox_card_refunds, period WHERE created_at >= period.f AND created_at < period.t
     UNION ALL
     SELECT reference, 'dispute', order_id, (-withdrawn)::text, fee::text, currency,
       (extract(epoch FROM opened_at) * 1000)::bigint::text
     FROM sandbox_card_disputes, period WHERE opened_at >= period.f AND opened_at < period.t
     UNION ALL
     SELECT reference || ':won', 'dispute', order_id, withdrawn::text, '0', currency,
       (extract(epoch FROM closed_at) * 1000)::bigint::text
     FROM sandbox_card_disputes, period
     WHERE status = 'WON' AND withdrawn > 0 AND closed_at >= period.f AND closed_at < period.t
     ORDER BY 7, 1`,
    [fromMs, toMs],
  );
  return rows;
}

/** Which of these orders the sandbox processor has authorised already. */
export async function sandboxAuthorizedAmong(
  q: Queryable,
  orderIds: readonly string[],
): Promise<Set<string>> {
  const { rows } = await q.query<{ order_id: string }>(
    'SELECT order_id FROM sandbox_card_authorizations WHERE order_id = ANY($1::text[])',
    [orderIds],
  );
  return new Set(rows.map((row) => row.order_id));
}

/** A sandbox authorization to record: amounts as decimal text, `at` epoch milliseconds. */
export interface SandboxAuthorization {
  orderId: string;
  fingerprint: string;
  currency: string;
  amount: string;
  at: number;
}

/** The authorizations, one statement; answers the order ids it wrote (a repeat writes nothing). */
export async function insertSandboxAuthorizations(
  q: Queryable,
  authorizations: readonly SandboxAuthorization[],
): Promise<Set<string>> {
  const { rows } = await q.query<{ order_id: string }>(
    `INSERT INTO sandbox_card_authorizations (order_id, card_fingerprint, currency, amount, state, created_at, updated_at)
     SELECT a.order_id, a.fingerprint, a.currency, a.amount, 'AUTHORIZED', to_timestamp(a.at / 1000.0), to_timestamp(a.at / 1000.0)
     FROM unnest($1::text[], $2::text[], $3::text[], $4::numeric[], $5::bigint[]) AS a(order_id, fingerprint, currency, amount, at)
     ON CONFLICT (order_id) DO NOTHING RETURNING order_id`,
    [
      authorizations.map((a) => a.orderId),
      authorizations.map((a) => a.fingerprint),
      authorizations.map((a) => a.currency),
      authorizations.map((a) => a.amount),
      authorizations.map((a) => a.at),
    ],
  );
  return new Set(rows.map((row) => row.order_id));
}

/** One conditional update: a repeat finds the rows already moved and changes nothing. */
export async function moveSandboxAuthorizations(
  q: Queryable,
  orderIds: readonly string[],
  from: string,
  to: string,
): Promise<void> {
  await q.query(
    `UPDATE sandbox_card_authorizations SET state = $3::text, updated_at = now(),
       captured_at = CASE WHEN $3::text = 'CAPTURED' THEN now() ELSE captured_at END
     WHERE order_id = ANY($1::text[]) AND state = $2`,
    [orderIds, from, to],
  );
}
