import type { ProcessorEvent, RefundSnapshot } from '../cards/index.ts';
import { stopChainSend } from '../chains/index.ts';
import type { Scope } from '../identity/index.ts';
import { type NewEntry, postEntry } from '../ledger/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { currencyScale, Money, parsePositiveAmount } from '../platform/money.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { FAILURES, walletOrderErrors } from './errors.ts';
import { failedRefundEntry, refundEntry, refundLossEntry } from './ledger.ts';
import { type RefundRequest, refundDelivered } from './refund-records.ts';
import {
  insertRefund,
  type RefundRow,
  type RefundStatus,
  refundById,
  refundByProcessorReference,
  refundsOf,
  settleRefund,
  withdrawnByDisputes,
} from './refunds-store.ts';
import { lockOrder, type OrderRow } from './store.ts';
import { failOrder } from './transitions.ts';

/**
 * Refunds of card orders (docs/contract.md, "Refunds and chargebacks", decisions 113 to 116).
 * Before capture a refund is a void; after capture and before delivery it is the whole charge,
 * the delivery stopped and the capture reversed; after delivery only the operator refunds, all
 * or part of what is left of the charge, booked as the house's loss. Every rule runs under the
 * order's row lock in the caller's transaction, so two refunds of one order take turns.
 */

/** POST /v3/orders/{orderId}/refund/partner's answer (Wyre's shape). */
export interface PartnerRefundView {
  walletOrderId: string;
  createdAt: number;
  requester: string;
  status: RefundStatus;
  finishedAt: number | null;
  failedReason: string | null;
}

export function partnerRefundView(row: RefundRow): PartnerRefundView {
  return {
    walletOrderId: row.order_id,
    createdAt: row.created_at.getTime(),
    requester: row.requester,
    status: row.status,
    finishedAt: row.finished_at ? row.finished_at.getTime() : null,
    failedReason: row.failed_reason,
  };
}

/** The operator's view: Wyre's fields plus the refund's id, amount, kind and what the ledger booked. */
export function operatorRefundView(row: RefundRow) {
  return {
    ...partnerRefundView(row),
    id: row.id,
    kind: row.kind,
    amount: new Money(row.amount),
    currency: row.currency,
    booking: row.booking,
    reason: row.reason,
  };
}

async function lockVisibleOrder(tx: Tx, orderId: string, partnerId?: string): Promise<OrderRow> {
  const order = await lockOrder(tx, orderId);
  if (!order || (partnerId !== undefined && order.partner_id !== partnerId))
    throw walletOrderErrors.notFound();
  return order;
}

/** The refund that made a FAILED order FAILED (its void or its full refund), if one did. */
const endingRefund = (refunds: readonly RefundRow[]) =>
  refunds.find((row) => row.kind === 'VOID' || (row.kind === 'FULL' && row.booking === 'CAPTURE_REVERSED'));

/**
 * Decision 113: the partner's refund. A refund of an order already refunded answers that refund;
 * a delivered order is refused (`refund.afterDelivery`) and nothing changes.
 */
export async function refundForPartner(
  ctx: WalletOrdersDeps,
  tx: Tx,
  scope: Scope,
  orderId: string,
): Promise<PartnerRefundView> {
  const order = await lockVisibleOrder(tx, orderId, scope.partnerId);
  const request = { requester: `account:${scope.accountId}`, reason: 'partner refund' };
  return partnerRefundView(await refundUndelivered(ctx, tx, order, request));
}

/** Before delivery: the void or the whole refund, the order FAILED; a repeat answers the first. */
async function refundUndelivered(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderRow,
  request: RefundRequest,
): Promise<RefundRow> {
  if (order.status === 'FAILED') {
    const earlier = endingRefund(await refundsOf(tx, order.id));
    if (earlier) return earlier;
    throw walletOrderErrors.refundNotRefundable('The order failed without being charged: nothing to refund.');
  }
  if (order.status === 'COMPLETE' || order.status === 'CHARGEBACK')
    throw walletOrderErrors.refundAfterDelivery();
  if (order.status === 'PROCESSING' && !(await stopChainSend(ctx, tx, `order:${order.id}`))) {
    throw walletOrderErrors.refundDeliveryUnderway();
  }
  await failOrder(ctx, tx, order, FAILURES.refunded, request);
  return endingRefund(await refundsOf(tx, order.id))!;
}

export interface OperatorRefundInput {
  amount?: string | number | undefined;
  requestedBy: string;
  reason?: string | undefined;
}

/**
 * Decisions 114 and 115: the operator's refund. Before delivery as the partner's (whole only);
 * after delivery all or part of what is left of the charge (refunds and disputes taken off).
 */
export async function refundByOperator(
  ctx: WalletOrdersDeps,
  tx: Tx,
  orderId: string,
  input: OperatorRefundInput,
): Promise<RefundRow> {
  const order = await lockVisibleOrder(tx, orderId);
  const request = { requester: `operator:${input.requestedBy}`, reason: input.reason ?? null };
  const charged = new Money(order.source_amount);
  const asked =
    input.amount === undefined
      ? undefined
      : parsePositiveAmount(input.amount, 'amount', order.source_currency);
  if (order.status !== 'COMPLETE' && order.status !== 'CHARGEBACK') {
    if (asked && !asked.eq(charged)) throw walletOrderErrors.refundPartialBeforeDelivery();
    if (order.status === 'FAILED') {
      throw walletOrderErrors.refundNotRefundable(
        'The order failed: its charge was voided or refunded already.',
      );
    }
    return refundUndelivered(ctx, tx, order, request);
  }
  if (order.captured_at === null) {
    throw walletOrderErrors.refundNotRefundable('The order’s charge was never captured: nothing to refund.');
  }
  const earlier = await refundsOf(tx, order.id);
  const left = charged
    .minus(refundedSoFar(earlier))
    .minus(new Money(await withdrawnByDisputes(tx, order.id)));
  const amount = asked ?? left;
  if (amount.gt(left) || left.lte(0)) {
    const scale = currencyScale(order.source_currency);
    throw walletOrderErrors.refundExceedsCaptured(Money.max(left, 0).toFixed(scale), order.source_currency);
  }
  const kind = amount.eq(charged) ? 'FULL' : 'PARTIAL';
  return refundDelivered(ctx, tx, order, { amount, kind, request }, earlier);
}

/** What the refunds gave back of the charge, or will: every refund but voids and failed ones. */
function refundedSoFar(refunds: readonly RefundRow[]): Money {
  return refunds
    .filter((row) => row.kind !== 'VOID' && row.status !== 'FAILED' && row.booking !== 'NONE')
    .reduce((sum, row) => sum.plus(row.amount), new Money(0));
}

const STATUS_OF: Record<RefundSnapshot['status'], RefundStatus> = {
  PENDING: 'PENDING',
  SUCCEEDED: 'COMPLETE',
  FAILED: 'FAILED',
};

/**
 * Decision 116: the processor's word on a refund, in the transaction that records the event. A
 * refund Rampart asked for is found by the processor's reference, else by the order and amount
 * among those not yet matched; a FAILED one has its booking reversed. A refund Rampart never
 * asked for (made in the processor's dashboard) is recorded and, once it succeeded, booked as
 * the house's loss. Repeated and late events change nothing twice: FAILED is final.
 */
export async function onRefundEvent(
  ctx: WalletOrdersDeps,
  tx: Tx,
  event: Extract<ProcessorEvent, { kind: 'refund.updated' }>,
): Promise<void> {
  const snapshot = event.refund;
  const known = await refundByProcessorReference(tx, snapshot.reference);
  const orderId = known?.order_id ?? event.orderId;
  if (orderId === null) return; // not a charge of Rampart's
  const order = await lockOrder(tx, orderId);
  if (!order) return;
  const row = known ?? (await unmatchedRefund(tx, order.id, snapshot));
  if (!row) return recordProcessorRefund(ctx, tx, order, snapshot);
  await applyRefundStatus(ctx, tx, order, row, snapshot);
}

/** The oldest refund of the order for this amount the processor has not named yet. */
async function unmatchedRefund(tx: Tx, orderId: string, snapshot: RefundSnapshot) {
  const candidates = (await refundsOf(tx, orderId)).filter(
    (row) =>
      row.kind !== 'VOID' &&
      row.kind !== 'PROCESSOR' &&
      row.processor_reference === null &&
      snapshot.amount.eq(row.amount),
  );
  return candidates.find((row) => row.status === 'PENDING') ?? candidates[0];
}

async function applyRefundStatus(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderRow,
  row: RefundRow,
  snapshot: RefundSnapshot,
): Promise<void> {
  const status = STATUS_OF[snapshot.status];
  const nowMs = ctx.clock.nowMs();
  const reference = snapshot.reference;
  if (row.status === 'FAILED' || (row.status === 'COMPLETE' && status !== 'FAILED')) {
    if (row.processor_reference === null) {
      await settleRefund(tx, row.id, {
        status: row.status,
        processorReference: reference,
        failedReason: row.failed_reason,
        nowMs,
      });
    }
    return;
  }
  if (status === 'FAILED') {
    const booked = bookedEntry(order, row);
    if (booked) await postEntry(tx, failedRefundEntry(booked));
    await settleRefund(tx, row.id, {
      status,
      processorReference: reference,
      failedReason: 'The card processor could not refund the card.',
      nowMs,
    });
    return;
  }
  if (row.kind === 'PROCESSOR' && row.booking === 'NONE' && status === 'COMPLETE') {
    await postEntry(tx, refundLossEntry(order.id, row.currency, new Money(row.amount)));
    await settleRefund(tx, row.id, {
      status,
      processorReference: reference,
      failedReason: null,
      nowMs,
      booking: 'LOSS',
    });
    return;
  }
  await settleRefund(tx, row.id, { status, processorReference: reference, failedReason: null, nowMs });
}

/** What the ledger booked for a refund, to reverse if it fails. */
function bookedEntry(order: OrderRow, row: RefundRow): NewEntry | undefined {
  if (row.booking === 'CAPTURE_REVERSED') return refundEntry(order);
  if (row.booking === 'LOSS') return refundLossEntry(order.id, row.currency, new Money(row.amount));
  return undefined;
}

/** A refund made at the processor without Rampart: recorded, booked once it succeeded. */
async function recordProcessorRefund(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderRow,
  snapshot: RefundSnapshot,
): Promise<void> {
  const status = STATUS_OF[snapshot.status];
  if (status === 'FAILED' || snapshot.amount.lte(0)) return;
  const id = `processor:${snapshot.reference}`;
  if (await refundById(tx, id)) return;
  await insertRefund(tx, {
    id,
    order_id: order.id,
    partner_id: order.partner_id,
    n: null,
    kind: 'PROCESSOR',
    requester: 'processor',
    amount: snapshot.amount.toFixed(),
    currency: snapshot.currency,
    booking: status === 'COMPLETE' ? 'LOSS' : 'NONE',
    status,
    processor_reference: snapshot.reference,
    reason: 'refunded at the card processor',
    nowMs: ctx.clock.nowMs(),
  });
  if (status === 'COMPLETE')
    await postEntry(tx, refundLossEntry(order.id, snapshot.currency, snapshot.amount));
}
