import type { DisputeSnapshot, ProcessorEvent } from '../cards/index.ts';
import { postEntry } from '../ledger/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { chargebackEntry, chargebackReversalEntry } from './ledger.ts';
import {
  closeDispute,
  type DisputeRow,
  type DisputeStatus,
  insertDispute,
  lockDispute,
  refundsOf,
  withdrawnByDisputes,
} from './refunds-store.ts';
import { lockOrder, type OrderRow, type OrderStatus, setStatus } from './store.ts';
import { notifyOrderStatus } from './webhooks.ts';

/**
 * Chargebacks (docs/contract.md, "Refunds and chargebacks", decisions 117 to 119). A dispute
 * opened takes back what the processor withdrew (the disputed amount, at most what the refunds
 * left of the charge) from external:card to house:chargebacks, and a delivered order becomes
 * CHARGEBACK with its webhook; a dispute won gives it back and restores the order's status; a
 * dispute lost changes nothing more. The dispute's fee is the processor's, booked from its
 * balance transactions (card-reconciliation.ts). Repeated events change nothing, and a dispute
 * first heard of as won or lost is booked as it ended.
 */

type DisputeEvent = Extract<ProcessorEvent, { kind: 'dispute.opened' | 'dispute.won' | 'dispute.lost' }>;

/** A dispute opened, won or lost on an order's charge, in the transaction that records the event. */
export async function onDisputeEvent(ctx: WalletOrdersDeps, tx: Tx, event: DisputeEvent): Promise<void> {
  if (event.orderId === null) return; // not a charge of Rampart's
  const order = await lockOrder(tx, event.orderId);
  if (!order) return;
  const dispute = await lockDispute(tx, event.dispute.reference);
  if (!dispute) return recordDispute(ctx, tx, order, event);
  if (dispute.status !== 'OPEN' || event.kind === 'dispute.opened') return;
  const status = event.kind === 'dispute.won' ? 'WON' : 'LOST';
  await closeDispute(tx, dispute.reference, status, ctx.clock.nowMs());
  if (status === 'WON') await giveBack(ctx, tx, order, dispute);
}

/**
 * The first event of a dispute. Won at once: nothing was kept, nothing is booked. Opened or
 * lost: the withdrawal booked, and a delivered order becomes CHARGEBACK.
 */
async function recordDispute(ctx: WalletOrdersDeps, tx: Tx, order: OrderRow, event: DisputeEvent) {
  const status: DisputeStatus =
    event.kind === 'dispute.opened' ? 'OPEN' : event.kind === 'dispute.won' ? 'WON' : 'LOST';
  const withdrawn = status === 'WON' ? new Money(0) : await withdrawable(tx, order, event.dispute);
  await insertDispute(tx, {
    reference: event.dispute.reference,
    order_id: order.id,
    partner_id: order.partner_id,
    amount: event.dispute.amount.toFixed(),
    withdrawn: withdrawn.toFixed(),
    currency: order.source_currency,
    reason: event.dispute.reason.slice(0, 200),
    status,
    status_before: order.status,
    nowMs: ctx.clock.nowMs(),
  });
  if (withdrawn.gt(0)) await postEntry(tx, chargebackEntry(order.id, order.source_currency, withdrawn));
  if (status !== 'WON' && order.status === 'COMPLETE') await moveOrder(ctx, tx, order, 'CHARGEBACK');
}

/**
 * Decision 118: what the processor withdrew for the dispute: the disputed amount, at most what
 * is left of the captured charge after the refunds and the order's other disputes.
 */
async function withdrawable(tx: Tx, order: OrderRow, dispute: DisputeSnapshot): Promise<Money> {
  if (order.captured_at === null) return new Money(0);
  const refunded = (await refundsOf(tx, order.id))
    .filter((row) => row.kind !== 'VOID' && row.status !== 'FAILED' && row.booking !== 'NONE')
    .reduce((sum, row) => sum.plus(row.amount), new Money(0));
  const left = new Money(order.source_amount)
    .minus(refunded)
    .minus(new Money(await withdrawnByDisputes(tx, order.id)));
  return Money.max(0, Money.min(dispute.amount, left));
}

/** A dispute won: the withdrawal comes back, and the order its status once no other dispute holds it. */
async function giveBack(ctx: WalletOrdersDeps, tx: Tx, order: OrderRow, dispute: DisputeRow) {
  const withdrawn = new Money(dispute.withdrawn);
  if (withdrawn.gt(0)) await postEntry(tx, chargebackReversalEntry(order.id, dispute.currency, withdrawn));
  if (order.status !== 'CHARGEBACK') return;
  if (new Money(await withdrawnByDisputes(tx, order.id)).gt(0)) return;
  await moveOrder(ctx, tx, order, dispute.status_before as OrderStatus);
}

async function moveOrder(ctx: WalletOrdersDeps, tx: Tx, order: OrderRow, status: OrderStatus) {
  const updated = await setStatus(tx, order.id, { status, nowMs: ctx.clock.nowMs() });
  await notifyOrderStatus(ctx, tx, updated, status);
}
