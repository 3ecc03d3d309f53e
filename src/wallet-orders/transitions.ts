import { cardProcessor } from '../cards/service.ts';
import { networkFor, parseChainSrn } from '../chains/addresses.ts';
import { type ChainOutcome, type ChainSend, requestChainSend, requestChainSends } from '../chains/port.ts';
import { combinedEntries, entryArguments, type NewEntry, settleHold } from '../ledger/service.ts';
import { releaseSpend } from '../limits/service.ts';
import type { AppContext } from '../platform/context.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import {
  completeOrderTransfer,
  completeOrderTransfers,
  failOrderTransfer,
  recordOrderTransfer,
  recordOrderTransfers,
} from '../transfers/order-transfers.ts';
import { deliveryOf } from './delivery-transfer.ts';
import type { Failure } from './errors.ts';
import { captureEntry, deliveryEntry, refundEntry, releaseCardHold } from './ledger.ts';
import {
  failPendingAuthorization,
  lockOrder,
  lockOrders,
  type OrderRow,
  setStatus,
  setStatuses,
} from './store.ts';
import { notifyOrderStatus } from './webhooks.ts';

/**
 * Order state changes, each under the order's row lock in one transaction with its ledger
 * entries, processor calls and webhook: RUNNING_CHECKS → PROCESSING → COMPLETE, or → FAILED.
 * From PROCESSING on, the order's delivery transfer (transfers/order-transfers.ts) follows it in
 * the same transactions: PENDING, then COMPLETED or FAILED.
 * Every function first re-reads the status, so a repeated job or outcome changes nothing.
 */

/**
 * The status change, with the ledger entry it books (if any; `settlesHold`: the entry settles
 * that pending hold) in the same statement, and its webhook.
 */
async function moveTo(
  ctx: AppContext,
  tx: Tx,
  order: OrderRow,
  change: {
    status: OrderRow['status'];
    transferId?: string;
    failure?: Failure;
    entry?: NewEntry | undefined;
    settlesHold?: number;
  },
): Promise<OrderRow> {
  const { entry, settlesHold, ...rest } = change;
  const updated = await setStatus(tx, order.id, {
    ...rest,
    nowMs: ctx.clock.nowMs(),
    ledger: entry && { entry: entryArguments(entry), settlesHold },
  });
  await notifyOrderStatus(ctx, tx, updated, change.status);
  return updated;
}

/**
 * Before capture: void the authorization and the ledger hold, release the limits spend. After
 * capture (delivery failed): refund the card and reverse the capture entry.
 */
export async function failOrder(ctx: AppContext, tx: Tx, order: OrderRow, failure: Failure): Promise<void> {
  if (order.status === 'COMPLETE' || order.status === 'FAILED') return;
  const processor = cardProcessor(ctx);
  // The limit keys first, as order creation takes them before the external:card balance row:
  // the other way round, a failing order and a new one on the same card could deadlock.
  await releaseSpend(tx, order.id);
  let refund: NewEntry | undefined;
  if (order.status === 'RUNNING_CHECKS') {
    await processor.void(tx, order.id);
    await releaseCardHold(tx, order);
    if (order.auth_method !== null) await failPendingAuthorization(tx, order.id, ctx.clock.nowMs());
  } else {
    await processor.refund(tx, order.id);
    await failOrderTransfer(ctx, tx, order.transfer_id, failure.message);
    refund = refundEntry(order);
  }
  await moveTo(ctx, tx, order, { status: 'FAILED', failure, entry: refund });
}

/**
 * The worker's step once checks passed: capture the card, record the delivery transfer, then
 * deliver. Custody destinations are credited at once (COMPLETE); a chain address gets a send
 * through the chains port and the order stays PROCESSING until the chain reports.
 *
 * The capture's ledger entry comes last, just before COMMIT (one transaction: the order does
 * not change): it moves the `external:card` balance row, which every new order's hold also
 * moves, so the row is locked against them for as short a time as possible. For a chain address
 * it rides on the PROCESSING status change, which then comes after the send request.
 */
export async function processOrder(ctx: AppContext, orderId: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const order = await lockOrder(tx, orderId);
    if (order?.status !== 'RUNNING_CHECKS') return;
    if (order.auth_state !== null && order.auth_state !== 'PASSED') return;
    const capture = captureEntry(order);
    await cardProcessor(ctx).capture(tx, [orderId]);
    const transferId = await recordOrderTransfer(ctx, tx, deliveryOf(order));
    if (isCustody(order.dest)) {
      const processing = await moveTo(ctx, tx, order, { status: 'PROCESSING', transferId });
      await completeOrderTransfer(ctx, tx, transferId, null);
      await moveTo(ctx, tx, processing, {
        status: 'COMPLETE',
        entry: deliveryEntry(processing, ctx.config.env),
      });
      await settleHold(tx, capture.holdId, capture.entry);
      return;
    }
    await requestChainSend(ctx, tx, chainSendOf(ctx, order));
    await moveTo(ctx, tx, order, {
      status: 'PROCESSING',
      transferId,
      entry: capture.entry,
      settlesHold: capture.holdId,
    });
  });
}

const isCustody = (dest: string) => dest.startsWith('account:') || dest.startsWith('AC_');

/**
 * onOrderDelivery for the outcomes of sends settled together: the confirmed deliveries of
 * PROCESSING orders complete in a few statements for all (their transfers, then their delivery
 * entries with the status change); any other outcome goes through onOrderDelivery on its own.
 */
export async function onOrderDeliveries(ctx: AppContext, tx: Tx, outcomes: ChainOutcome[]): Promise<void> {
  const byOrder = new Map(outcomes.map((outcome) => [outcome.reference.slice('order:'.length), outcome]));
  const delivered = (await lockOrders(tx, [...byOrder.keys()])).filter(
    (order) => order.status === 'PROCESSING' && byOrder.get(order.id)?.status === 'CONFIRMED',
  );
  await completeOrderTransfers(
    ctx,
    tx,
    delivered.map((order) => ({
      transferId: order.transfer_id,
      blockchainTx: byOrder.get(order.id)!.blockchainTx ?? null,
    })),
  );
  if (delivered.length > 0) {
    const entries = combinedEntries(
      delivered.map((order) => entryArguments(deliveryEntry(order, ctx.config.env))),
    );
    const changed = await setStatuses(tx, delivered, { entries }, 'COMPLETE', ctx.clock.nowMs());
    for (const row of changed) await notifyOrderStatus(ctx, tx, row, 'COMPLETE');
  }
  const done = new Set(delivered.map((order) => order.id));
  for (const [orderId, outcome] of byOrder) if (!done.has(orderId)) await onOrderDelivery(ctx, tx, outcome);
}

/**
 * processOrder for a batch of the worker's jobs, in one transaction of a handful of statements:
 * lock the orders (id order), capture their cards, record their delivery transfers, queue their
 * chain sends, and move them to PROCESSING with their capture entries (last: the entries move the
 * system balances' stripes). Orders paying into a custody account go through processOrder one by
 * one afterwards (they complete at once); orders no longer waiting for the worker are skipped, as
 * processOrder skips them. Anything thrown rolls the whole batch back: the runner then runs each
 * job alone (JobRunner.registerGroup).
 */
export async function processOrders(ctx: AppContext, orderIds: readonly string[]): Promise<void> {
  const alone: string[] = [];
  await withTransaction(ctx.db, async (tx) => {
    const ready = (await lockOrders(tx, orderIds)).filter(
      (order) =>
        order.status === 'RUNNING_CHECKS' && (order.auth_state === null || order.auth_state === 'PASSED'),
    );
    const toChain = ready.filter((order) => !isCustody(order.dest));
    alone.push(...ready.filter((order) => isCustody(order.dest)).map((order) => order.id));
    if (toChain.length === 0) return;
    await cardProcessor(ctx).capture(
      tx,
      toChain.map((order) => order.id),
    );
    const transferIds = await recordOrderTransfers(ctx, tx, toChain.map(deliveryOf));
    await requestChainSends(
      ctx,
      tx,
      toChain.map((order) => chainSendOf(ctx, order)),
    );
    // Holds settled together share their currency: one statement per source currency.
    for (const currency of new Set(toChain.map((order) => order.source_currency))) {
      const inCurrency = toChain.filter((order) => order.source_currency === currency);
      const captures = inCurrency.map(captureEntry);
      const moved = inCurrency.map((order) => ({
        id: order.id,
        transferId: transferIds[toChain.indexOf(order)]!,
      }));
      const booked = {
        entries: combinedEntries(captures.map((capture) => entryArguments(capture.entry))),
        holdIds: captures.map((capture) => capture.holdId),
      };
      const changed = await setStatuses(tx, moved, booked, 'PROCESSING', ctx.clock.nowMs());
      for (const row of changed) await notifyOrderStatus(ctx, tx, row, 'PROCESSING');
    }
  });
  for (const orderId of alone) await processOrder(ctx, orderId);
}

/** The order's crypto on its way to the address it names. */
function chainSendOf(ctx: AppContext, order: OrderRow): ChainSend {
  const { chain, address } = parseChainSrn(order.dest, 'dest', networkFor(ctx.config.env));
  return {
    reference: `order:${order.id}`,
    chain,
    address,
    currency: order.dest_currency,
    amount: new Money(order.dest_amount),
  };
}

/** The chains port's report on an order's send (registered for `order:` references). */
export async function onOrderDelivery(ctx: AppContext, tx: Tx, outcome: ChainOutcome): Promise<void> {
  const orderId = outcome.reference.slice('order:'.length);
  const order = await lockOrder(tx, orderId);
  if (order?.status !== 'PROCESSING') return;
  if (outcome.status === 'CONFIRMED') {
    await completeOrderTransfer(ctx, tx, order.transfer_id, outcome.blockchainTx ?? null);
    await moveTo(ctx, tx, order, { status: 'COMPLETE', entry: deliveryEntry(order, ctx.config.env) });
    return;
  }
  await failOrder(ctx, tx, order, {
    code: 'transfer.deliveryFailed',
    message: `The crypto could not be delivered (${(outcome.failureReason ?? 'chain failure').slice(0, 200)}); the card was refunded.`,
  });
}
