import { paymentKey } from '../cards/index.ts';
import { type NewEntry, postEntry } from '../ledger/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { refundEntry, refundLossEntry } from './ledger.ts';
import { insertRefund, type RefundKind, type RefundRow, refundsOf } from './refunds-store.ts';
import type { OrderRow } from './store.ts';

/**
 * The records and processor calls of the refunds Rampart makes (docs/contract.md, decisions 113
 * to 116), for the order transitions (a failed delivery) and the refund rules (refunds.ts) alike.
 * Each runs under the order's row lock, in the transaction of the change it belongs to.
 */

/** Who asked for a refund (`account:AC_…`, `operator:<name>`, `system`) and why. */
export interface RefundRequest {
  requester: string;
  reason: string | null;
}

export const DELIVERY_FAILURE_REFUND: RefundRequest = { requester: 'system', reason: 'delivery failed' };

/** The next number among the order's refunds: its processor idempotency key is paymentKey(…, n). */
function nextNumber(earlier: readonly RefundRow[]): number {
  return earlier.reduce((max, row) => Math.max(max, row.n ?? 0), 0) + 1;
}

const statusOf = (confirmed: unknown) => (confirmed === 'COMPLETE' ? 'COMPLETE' : 'PENDING');

/** A void asked for before capture: nothing booked, the record answers a repeated refund request. */
export async function recordVoid(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderRow,
  request: RefundRequest,
): Promise<RefundRow> {
  return insertRefund(tx, {
    id: paymentKey(order.id, 'void'),
    order_id: order.id,
    partner_id: order.partner_id,
    n: null,
    kind: 'VOID',
    requester: request.requester,
    amount: new Money(order.source_amount).toFixed(),
    currency: order.source_currency,
    booking: 'NONE',
    status: 'COMPLETE',
    processor_reference: null,
    reason: request.reason,
    nowMs: ctx.clock.nowMs(),
  });
}

/**
 * The whole charge of a captured order not delivered given back: asked of the processor and
 * recorded; answers the capture reversed, which the caller books with the order's FAILED status.
 */
export async function refundCapture(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderRow,
  request: RefundRequest,
): Promise<NewEntry> {
  const n = nextNumber(await refundsOf(tx, order.id));
  const amount = new Money(order.source_amount);
  const refundId = paymentKey(order.id, 'refund', n);
  const confirmed = await ctx.cardProcessor.refund(tx, order.id, { refundId, amount });
  await insertRefund(tx, {
    id: refundId,
    order_id: order.id,
    partner_id: order.partner_id,
    n,
    kind: 'FULL',
    requester: request.requester,
    amount: amount.toFixed(),
    currency: order.source_currency,
    booking: 'CAPTURE_REVERSED',
    status: statusOf(confirmed),
    processor_reference: null,
    reason: request.reason,
    nowMs: ctx.clock.nowMs(),
  });
  return refundEntry(order);
}

/**
 * All or part of a delivered order's charge given back (the operator): asked of the processor,
 * recorded and booked as the house's loss (decision 115).
 */
export async function refundDelivered(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderRow,
  refund: { amount: Money; kind: Extract<RefundKind, 'FULL' | 'PARTIAL'>; request: RefundRequest },
  earlier: readonly RefundRow[],
): Promise<RefundRow> {
  const n = nextNumber(earlier);
  const refundId = paymentKey(order.id, 'refund', n);
  const confirmed = await ctx.cardProcessor.refund(tx, order.id, { refundId, amount: refund.amount });
  const row = await insertRefund(tx, {
    id: refundId,
    order_id: order.id,
    partner_id: order.partner_id,
    n,
    kind: refund.kind,
    requester: refund.request.requester,
    amount: refund.amount.toFixed(),
    currency: order.source_currency,
    booking: 'LOSS',
    status: statusOf(confirmed),
    processor_reference: null,
    reason: refund.request.reason,
    nowMs: ctx.clock.nowMs(),
  });
  await postEntry(tx, refundLossEntry(order.id, order.source_currency, refund.amount));
  return row;
}
