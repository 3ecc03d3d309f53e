import type { Queryable } from '../platform/db/pool.ts';
import { insertJobsFrom } from '../platform/jobs/queue.ts';

/**
 * SQL for a remote processor's payments, their capture / void / refund operations and the
 * processor events already handled (migrations/061_card_payments.sql).
 */

export type CardPaymentState =
  | 'AUTHORIZING'
  | 'CHALLENGE'
  | 'AUTHORIZED'
  | 'DECLINED'
  | 'CAPTURED'
  | 'VOIDED';

export interface CardPaymentRow {
  order_id: string;
  processor: string;
  token: string;
  amount: string;
  currency: string;
  force_3ds: boolean;
  state: CardPaymentState;
  reference: string | null;
  challenge_url: string | null;
  three_ds_onward: string | null;
  decline_reason: string | null;
  processor_code: string | null;
  polls: number;
  attention: string | null;
  authorization_expires_at: Date | null;
}

export interface NewCardPayment {
  orderId: string;
  processor: string;
  token: string;
  cardFingerprint: string;
  amount: string;
  currency: string;
  force3ds: boolean;
}

/** The payments of orders authorised together, one statement, in the orders' transaction. */
export async function insertPayments(q: Queryable, payments: readonly NewCardPayment[]): Promise<void> {
  await q.query(
    `INSERT INTO card_payments (order_id, processor, token, card_fingerprint, amount, currency, force_3ds, state)
     SELECT p.order_id, p.processor, p.token, p.fingerprint, p.amount, p.currency, p.force_3ds, 'AUTHORIZING'
     FROM unnest($1::text[], $2::text[], $3::text[], $4::numeric[], $5::text[], $6::boolean[], $7::text[])
       AS p(order_id, processor, token, amount, currency, force_3ds, fingerprint)
     ON CONFLICT (order_id) DO NOTHING`,
    [
      payments.map((p) => p.orderId),
      payments.map((p) => p.processor),
      payments.map((p) => p.token),
      payments.map((p) => p.amount),
      payments.map((p) => p.currency),
      payments.map((p) => p.force3ds),
      payments.map((p) => p.cardFingerprint),
    ],
  );
}

export async function findPayment(q: Queryable, orderId: string): Promise<CardPaymentRow | undefined> {
  const { rows } = await q.query<CardPaymentRow>('SELECT * FROM card_payments WHERE order_id = $1', [
    orderId,
  ]);
  return rows[0];
}

/** The payment's row lock; taken after the order's (wallet-orders lockOrder), never before. */
export async function lockPayment(q: Queryable, orderId: string): Promise<CardPaymentRow | undefined> {
  const { rows } = await q.query<CardPaymentRow>(
    'SELECT * FROM card_payments WHERE order_id = $1 FOR UPDATE',
    [orderId],
  );
  return rows[0];
}

/** The order a processor's payment reference belongs to, when an event names no order. */
export async function orderOfReference(
  q: Queryable,
  processor: string,
  reference: string,
): Promise<string | undefined> {
  const { rows } = await q.query<{ order_id: string }>(
    'SELECT order_id FROM card_payments WHERE processor = $1 AND reference = $2',
    [processor, reference],
  );
  return rows[0]?.order_id;
}

export type PaymentChange = Partial<
  Pick<
    CardPaymentRow,
    | 'state'
    | 'reference'
    | 'challenge_url'
    | 'three_ds_onward'
    | 'decline_reason'
    | 'processor_code'
    | 'polls'
    | 'attention'
    | 'authorization_expires_at'
  >
>;

export async function updatePayment(q: Queryable, orderId: string, change: PaymentChange): Promise<void> {
  const entries = Object.entries(change);
  if (entries.length === 0) return;
  const sets = entries.map(([column], index) => `${column} = $${index + 2}`);
  await q.query(`UPDATE card_payments SET ${sets.join(', ')}, updated_at = now() WHERE order_id = $1`, [
    orderId,
    ...entries.map(([, value]) => value),
  ]);
}

/** Whether another payment of this card (by fingerprint) belongs to an order past its checks. */
export async function cardHasPaidOrder(q: Queryable, fingerprint: string, exceptOrderId: string) {
  const { rows } = await q.query(
    `SELECT 1 FROM card_payments p JOIN wallet_orders o ON o.id = p.order_id
     WHERE p.card_fingerprint = $1 AND p.order_id <> $2 AND o.status IN ('PROCESSING', 'COMPLETE') LIMIT 1`,
    [fingerprint, exceptOrderId],
  );
  return rows.length > 0;
}

/** Payments the status poll gave up on, for the operator. */
export async function paymentsNeedingAttention(q: Queryable, limit = 100): Promise<CardPaymentRow[]> {
  const { rows } = await q.query<CardPaymentRow>(
    'SELECT * FROM card_payments WHERE attention IS NOT NULL ORDER BY updated_at LIMIT $1',
    [limit],
  );
  return rows;
}

export type OperationKind = 'capture' | 'void' | 'refund';

export interface OperationRow {
  order_id: string;
  kind: OperationKind;
  n: number;
  rampart_id: string;
  amount: string | null;
  state: 'REQUESTED' | 'DONE' | 'FAILED';
  attempts: number;
  reference: string | null;
  detail: string | null;
}

/** The job that makes a requested operation's call after COMMIT (payload: orderId, kind, n). */
export const CARD_OPERATION_JOB = 'cards.operation';
/** Backoff 2^attempt seconds (the job runner's), capped at an hour: about a day of asking. */
const OPERATION_ATTEMPTS = 30;

/** The jobs of the operations a statement's `o` member returns (the job queue's insert). */
const JOBS_OF_NEW =
  insertJobsFrom(`SELECT '${CARD_OPERATION_JOB}', jsonb_build_object('orderId', order_id, 'kind', kind, 'n', n), now(), ${OPERATION_ATTEMPTS}
  FROM o`);

/**
 * Captures of the orders' whole authorised amounts (once per order: a repeat adds nothing) and
 * their jobs, one statement. Orders without a remote payment are left out.
 */
export async function requestCaptures(q: Queryable, orderIds: readonly string[]): Promise<void> {
  await q.query(
    `WITH o AS (
       INSERT INTO card_payment_operations (order_id, kind, n, rampart_id, amount, state)
       SELECT p.order_id, 'capture', 1, p.order_id, p.amount, 'REQUESTED' FROM card_payments p
       WHERE p.order_id = ANY($1::text[]) AND p.state NOT IN ('DECLINED', 'VOIDED')
       ON CONFLICT DO NOTHING RETURNING order_id, kind, n)
     ${JOBS_OF_NEW}`,
    [orderIds],
  );
}

/** The void of a payment not captured (once per order), and its job. */
export async function requestVoid(q: Queryable, orderId: string): Promise<void> {
  await q.query(
    `WITH o AS (
       INSERT INTO card_payment_operations (order_id, kind, n, rampart_id, state)
       SELECT p.order_id, 'void', 1, p.order_id, 'REQUESTED' FROM card_payments p
       WHERE p.order_id = $1 AND p.state NOT IN ('DECLINED', 'VOIDED', 'CAPTURED')
       ON CONFLICT DO NOTHING RETURNING order_id, kind, n)
     ${JOBS_OF_NEW}`,
    [orderId],
  );
}

/** A refund numbered after the order's earlier ones, once per `refundId`, and its job. */
export async function requestRefund(
  q: Queryable,
  orderId: string,
  refundId: string,
  amount: string,
): Promise<void> {
  await q.query(
    `WITH o AS (
       INSERT INTO card_payment_operations (order_id, kind, n, rampart_id, amount, state)
       SELECT p.order_id, 'refund',
         1 + coalesce((SELECT max(n) FROM card_payment_operations WHERE order_id = $1 AND kind = 'refund'), 0),
         $2, $3, 'REQUESTED'
       FROM card_payments p WHERE p.order_id = $1
       ON CONFLICT DO NOTHING RETURNING order_id, kind, n)
     ${JOBS_OF_NEW}`,
    [orderId, refundId, amount],
  );
}

export async function lockOperation(
  q: Queryable,
  orderId: string,
  kind: OperationKind,
  n: number,
): Promise<OperationRow | undefined> {
  const { rows } = await q.query<OperationRow>(
    'SELECT * FROM card_payment_operations WHERE order_id = $1 AND kind = $2 AND n = $3 FOR UPDATE',
    [orderId, kind, n],
  );
  return rows[0];
}

export async function findOperations(q: Queryable, orderId: string): Promise<OperationRow[]> {
  const { rows } = await q.query<OperationRow>(
    'SELECT * FROM card_payment_operations WHERE order_id = $1 ORDER BY kind, n',
    [orderId],
  );
  return rows;
}

export async function updateOperation(
  q: Queryable,
  op: Pick<OperationRow, 'order_id' | 'kind' | 'n'>,
  change: Partial<Pick<OperationRow, 'state' | 'attempts' | 'reference' | 'detail'>>,
): Promise<void> {
  const entries = Object.entries(change);
  const sets = entries.map(([column], index) => `${column} = $${index + 4}`);
  await q.query(
    `UPDATE card_payment_operations SET ${sets.join(', ')}, updated_at = now()
     WHERE order_id = $1 AND kind = $2 AND n = $3`,
    [op.order_id, op.kind, op.n, ...entries.map(([, value]) => value)],
  );
}

/** Records a processor event as handled; false when it already was (a repeated delivery). */
export async function recordEvent(
  q: Queryable,
  event: { processor: string; eventId: string; kind: string; orderId: string | null; outcome: string },
): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO card_processor_events (processor, event_id, kind, order_id, outcome)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
    [event.processor, event.eventId, event.kind, event.orderId, event.outcome],
  );
  return rowCount === 1;
}

/** Operations the processor refused for good, newest first, for the operator. */
export async function failedOperations(
  q: Queryable,
  limit = 100,
): Promise<(OperationRow & { updated_at: Date })[]> {
  const { rows } = await q.query<OperationRow & { updated_at: Date }>(
    `SELECT * FROM card_payment_operations WHERE state = 'FAILED' ORDER BY updated_at DESC LIMIT $1`,
    [limit],
  );
  return rows;
}
