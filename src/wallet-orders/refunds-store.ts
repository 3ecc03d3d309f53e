import type { Queryable } from '../platform/db/pool.ts';

/** SQL of card refunds, disputes and fee bookings (migration 068). Amounts travel as decimal text. */

export type RefundKind = 'VOID' | 'FULL' | 'PARTIAL' | 'PROCESSOR';
export type RefundBooking = 'CAPTURE_REVERSED' | 'LOSS' | 'NONE';
export type RefundStatus = 'PENDING' | 'COMPLETE' | 'FAILED';

export interface RefundRow {
  id: string;
  order_id: string;
  partner_id: string;
  n: number | null;
  kind: RefundKind;
  requester: string;
  amount: string;
  currency: string;
  booking: RefundBooking;
  status: RefundStatus;
  processor_reference: string | null;
  reason: string | null;
  failed_reason: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export type NewRefund = Omit<RefundRow, 'created_at' | 'finished_at' | 'failed_reason'> & { nowMs: number };

export async function insertRefund(q: Queryable, refund: NewRefund): Promise<RefundRow> {
  const { rows } = await q.query<RefundRow>(
    `INSERT INTO card_refunds (id, order_id, partner_id, n, kind, requester, amount, currency, booking, status,
       processor_reference, reason, created_at, finished_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, to_timestamp($13::bigint / 1000.0),
       CASE WHEN $10 = 'PENDING' THEN NULL ELSE to_timestamp($13::bigint / 1000.0) END)
     RETURNING *`,
    [
      refund.id,
      refund.order_id,
      refund.partner_id,
      refund.n,
      refund.kind,
      refund.requester,
      refund.amount,
      refund.currency,
      refund.booking,
      refund.status,
      refund.processor_reference,
      refund.reason,
      refund.nowMs,
    ],
  );
  return rows[0]!;
}

/** An order's refunds, oldest first (the caller holds the order's row lock). */
export async function refundsOf(q: Queryable, orderId: string): Promise<RefundRow[]> {
  const { rows } = await q.query<RefundRow>(
    'SELECT * FROM card_refunds WHERE order_id = $1 ORDER BY created_at, id',
    [orderId],
  );
  return rows;
}

export async function refundByProcessorReference(
  q: Queryable,
  reference: string,
): Promise<RefundRow | undefined> {
  const { rows } = await q.query<RefundRow>('SELECT * FROM card_refunds WHERE processor_reference = $1', [
    reference,
  ]);
  return rows[0];
}

export async function refundById(q: Queryable, id: string): Promise<RefundRow | undefined> {
  const { rows } = await q.query<RefundRow>('SELECT * FROM card_refunds WHERE id = $1', [id]);
  return rows[0];
}

/** The processor's word on a refund: its status, and the processor's reference once known. */
export async function settleRefund(
  q: Queryable,
  id: string,
  change: {
    status: RefundStatus;
    processorReference: string | null;
    failedReason: string | null;
    nowMs: number;
    booking?: RefundBooking;
  },
): Promise<RefundRow> {
  const { rows } = await q.query<RefundRow>(
    `UPDATE card_refunds SET status = $2, processor_reference = COALESCE(processor_reference, $3),
       failed_reason = $4, booking = COALESCE($6, booking),
       finished_at = CASE WHEN $2 = 'PENDING' THEN NULL ELSE COALESCE(finished_at, to_timestamp($5::bigint / 1000.0)) END
     WHERE id = $1 RETURNING *`,
    [id, change.status, change.processorReference, change.failedReason, change.nowMs, change.booking ?? null],
  );
  return rows[0]!;
}

export type DisputeStatus = 'OPEN' | 'WON' | 'LOST';

export interface DisputeRow {
  reference: string;
  order_id: string;
  partner_id: string;
  amount: string;
  withdrawn: string;
  currency: string;
  reason: string;
  status: DisputeStatus;
  status_before: string;
  opened_at: Date;
  closed_at: Date | null;
}

/** Locks the dispute (the caller holds its order's row lock first). */
export async function lockDispute(q: Queryable, reference: string): Promise<DisputeRow | undefined> {
  const { rows } = await q.query<DisputeRow>('SELECT * FROM card_disputes WHERE reference = $1 FOR UPDATE', [
    reference,
  ]);
  return rows[0];
}

/** What the order's disputes took back and kept (open or lost), per the order's currency. */
export async function withdrawnByDisputes(q: Queryable, orderId: string): Promise<string> {
  const { rows } = await q.query<{ total: string }>(
    `SELECT COALESCE(sum(withdrawn), 0)::text AS total FROM card_disputes
     WHERE order_id = $1 AND status IN ('OPEN', 'LOST')`,
    [orderId],
  );
  return rows[0]!.total;
}

export async function insertDispute(
  q: Queryable,
  dispute: Omit<DisputeRow, 'opened_at' | 'closed_at'> & { nowMs: number },
): Promise<void> {
  await q.query(
    `INSERT INTO card_disputes (reference, order_id, partner_id, amount, withdrawn, currency, reason, status,
       status_before, opened_at, closed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, to_timestamp($10::bigint / 1000.0),
       CASE WHEN $8 = 'OPEN' THEN NULL ELSE to_timestamp($10::bigint / 1000.0) END)`,
    [
      dispute.reference,
      dispute.order_id,
      dispute.partner_id,
      dispute.amount,
      dispute.withdrawn,
      dispute.currency,
      dispute.reason,
      dispute.status,
      dispute.status_before,
      dispute.nowMs,
    ],
  );
}

export async function closeDispute(q: Queryable, reference: string, status: 'WON' | 'LOST', nowMs: number) {
  await q.query(
    `UPDATE card_disputes SET status = $2, closed_at = to_timestamp($3::bigint / 1000.0) WHERE reference = $1`,
    [reference, status, nowMs],
  );
}

export interface FeeBooking {
  reference: string;
  orderId: string | null;
  kind: 'PROCESSING' | 'DISPUTE';
  amount: string;
  currency: string;
  occurredAtMs: number;
}

/** Records the fee bookings not recorded yet; answers the references it recorded now. */
export async function insertFeeBookings(q: Queryable, fees: readonly FeeBooking[]): Promise<Set<string>> {
  if (fees.length === 0) return new Set();
  const { rows } = await q.query<{ reference: string }>(
    `INSERT INTO card_fee_bookings (reference, order_id, kind, amount, currency, occurred_at)
     SELECT f.reference, f.order_id, f.kind, f.amount, f.currency, to_timestamp(f.at_ms / 1000.0)
     FROM unnest($1::text[], $2::text[], $3::text[], $4::numeric[], $5::text[], $6::bigint[])
       AS f(reference, order_id, kind, amount, currency, at_ms)
     ON CONFLICT (reference) DO NOTHING RETURNING reference`,
    [
      fees.map((fee) => fee.reference),
      fees.map((fee) => fee.orderId),
      fees.map((fee) => fee.kind),
      fees.map((fee) => fee.amount),
      fees.map((fee) => fee.currency),
      fees.map((fee) => fee.occurredAtMs),
    ],
  );
  return new Set(rows.map((row) => row.reference));
}

/** The fees booked for a period's balance transactions, per order (null: not an order's) and currency. */
export async function feeBookingsIn(q: Queryable, fromMs: number, toMs: number) {
  const { rows } = await q.query<{ order_id: string | null; currency: string; kind: string; total: string }>(
    `SELECT order_id, currency, kind, sum(amount)::text AS total FROM card_fee_bookings
     WHERE occurred_at >= to_timestamp($1::bigint / 1000.0) AND occurred_at < to_timestamp($2::bigint / 1000.0)
     GROUP BY order_id, currency, kind`,
    [fromMs, toMs],
  );
  return rows;
}
