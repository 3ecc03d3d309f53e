import { type ChainOutcome, type ChainSend, parseChainSrn, requestChainSends } from '../chains/index.ts';
import { combinedEntries, entryArguments, type NewEntry, settleHold } from '../ledger/index.ts';
import { releaseSpend } from '../limits/index.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import {
  completeOrderTransfer,
  completeOrderTransfers,
  failOrderTransfer,
  recordOrderTransfer,
  recordOrderTransfers,
} from '../transfers/index.ts';
import { deliveryOf } from './delivery-transfer.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { deliveryFailure, type Failure } from './errors.ts';
import { captureEntry, deliveryEntry, releaseCardHold } from './ledger.ts';
import { DELIVERY_FAILURE_REFUND, type RefundRequest, recordVoid, refundCapture } from './refund-records.ts';
import {
  failPendingAuthorization,
  lockOrder,
  lockWorkerOrders,
  type OrderRow,
  setStatus,
  setStatuses,
  type WorkerOrderRow,
} from './store.ts';
import { notifyOrderStatus } from './webhooks.ts';

/**
 * Order state changes, each under the order's row lock in one transaction with its ledger
 * entries, processor calls and webhook: RUNNING_CHECKS → PROCESSING → COMPLETE, or → FAILED.
 * From PROCESSING on, the order's delivery transfer (transfers/order-transfers.ts) follows it in
 * the same transactions: PENDING, then COMPLETED or FAILED. The card is captured when the crypto
 * is delivered, with the COMPLETE change (docs/contract.md, decision 110), or earlier when its
 * authorization nears its end (capture-sweep.ts); an order that fails before its capture has
 * its authorization voided, one that fails after it is refunded (decision 111).
 * Every function first re-reads the status, so a repeated job or outcome changes nothing.
 */

/**
 * The status change, with the ledger entry it books (if any; `settlesHold`: the entry settles
 * that pending hold) in the same statement, and its webhook.
 */
async function moveTo(
  ctx: WalletOrdersDeps,
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
 * Before capture (checks or delivery failed, or a refund asked for): void the authorization and
 * release the ledger hold. After capture (delivery failed once the sweep had captured, or a
 * refund before delivery): refund the card and reverse the capture entry. Either way the limits
 * spend is released, and a PROCESSING order's delivery transfer fails with it. `refund` names who
 * asked for it when someone did (refunds.ts): the void or refund is recorded as theirs.
 */
export async function failOrder(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderRow,
  failure: Failure,
  refund?: RefundRequest,
): Promise<void> {
  if (order.status !== 'RUNNING_CHECKS' && order.status !== 'PROCESSING') return;
  const processor = ctx.cardProcessor;
  // The limit keys first, as order creation takes them before the external:card balance row:
  // the other way round, a failing order and a new one on the same card could deadlock.
  await releaseSpend(tx, order.id);
  if (order.status === 'RUNNING_CHECKS') {
    if (order.auth_method !== null) await failPendingAuthorization(tx, order.id, ctx.clock.nowMs());
  } else await failOrderTransfer(ctx, tx, order.transfer_id, failure.message);
  // The external:card balance stripe last (the hold's release, or the refund entry), as the
  // other paths move it: just before COMMIT.
  let reversal: NewEntry | undefined;
  if (order.captured_at === null) {
    await processor.void(tx, order.id);
    await releaseCardHold(tx, order);
    if (refund) await recordVoid(ctx, tx, order, refund);
  } else {
    reversal = await refundCapture(ctx, tx, order, refund ?? DELIVERY_FAILURE_REFUND);
  }
  await moveTo(ctx, tx, order, { status: 'FAILED', failure, entry: reversal });
}

/** Still waiting for the worker: checks passed and no authorization step left pending. */
const awaitsProcessing = (order: Pick<OrderRow, 'status' | 'auth_state'>) =>
  order.status === 'RUNNING_CHECKS' && (order.auth_state === null || order.auth_state === 'PASSED');

const isCustody = (dest: string) => dest.startsWith('account:') || dest.startsWith('AC_');

/** The worker's step once checks passed, for one order (processOrders with one). */
export function processOrder(ctx: WalletOrdersDeps, orderId: string): Promise<void> {
  return processOrders(ctx, [orderId]);
}

/**
 * The worker's step once checks passed, for a batch of its jobs: record the delivery transfers,
 * then deliver; the cards stay authorized, captured once the crypto is delivered
 * (onOrderDeliveries). A chain address gets a send through the chains port and the order stays
 * PROCESSING until the chain reports; that is one transaction of a handful of statements for the
 * whole batch: lock the orders (id order), record the transfers, queue the sends, and move the
 * orders to PROCESSING. It books nothing on the ledger, so it never locks the `external:card`
 * balance stripe that new orders' holds move. Orders paying into a custody account complete at
 * once, each in its own transaction afterwards (completeToCustody). Orders no longer waiting for
 * the worker are skipped. Anything thrown rolls the whole batch back: the runner then runs each
 * job alone (JobRunner.registerGroup).
 */
export async function processOrders(ctx: WalletOrdersDeps, orderIds: readonly string[]): Promise<void> {
  const toCustody: string[] = [];
  await withTransaction(ctx.db, async (tx) => {
    const ready = (await lockWorkerOrders(tx, orderIds)).filter(awaitsProcessing);
    const toChain = ready.filter((order) => !isCustody(order.dest));
    toCustody.push(...ready.filter((order) => isCustody(order.dest)).map((order) => order.id));
    if (toChain.length === 0) return;
    const transferIds = await recordOrderTransfers(ctx, tx, toChain.map(deliveryOf));
    await requestChainSends(
      ctx,
      tx,
      toChain.map((order) => chainSendOf(ctx, order)),
    );
    const orders = toChain.map((order, index) => ({ id: order.id, transferId: transferIds[index]! }));
    const changed = await setStatuses(tx, orders, undefined, 'PROCESSING', ctx.clock.nowMs());
    for (const row of changed) await notifyOrderStatus(ctx, tx, row, 'PROCESSING');
  });
  for (const orderId of toCustody) await completeToCustody(ctx, orderId);
}

/**
 * A custody destination is credited at once, so its capture comes with its delivery as a chain
 * address's does: capture, the delivery transfer, PROCESSING, the credit and COMPLETE in one
 * transaction, the capture entry last, just before COMMIT (it moves the `external:card` balance
 * stripe, which new orders' holds also move).
 */
async function completeToCustody(ctx: WalletOrdersDeps, orderId: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const order = await lockOrder(tx, orderId);
    if (!order || !awaitsProcessing(order)) return;
    const capture = captureEntry(order);
    await ctx.cardProcessor.capture(tx, [orderId]);
    const transferId = await recordOrderTransfer(ctx, tx, deliveryOf(order));
    const processing = await moveTo(ctx, tx, order, { status: 'PROCESSING', transferId });
    await completeOrderTransfer(ctx, tx, transferId, null);
    await moveTo(ctx, tx, processing, {
      status: 'COMPLETE',
      entry: deliveryEntry(processing, ctx.chains.network),
    });
    await settleHold(tx, capture.holdId, capture.entry);
  });
}

/** The chains port's report on an order's send (its handler for `order:` references, compose.ts). */
export function onOrderDelivery(ctx: WalletOrdersDeps, tx: Tx, outcome: ChainOutcome): Promise<void> {
  return onOrderDeliveries(ctx, tx, [outcome]);
}

/**
 * The chains port's reports on orders' sends, in the settling transaction: the confirmed
 * deliveries of PROCESSING orders complete in a few statements for all: lock the orders (id
 * order), complete their transfers, capture the cards not captured yet, then the status change
 * with the capture and delivery entries together (completeDelivered), last before COMMIT as it
 * moves the `external:card` balance stripe. A failed delivery voids or refunds its order
 * (failOrder); an order no longer PROCESSING is left alone (a repeated report). Anything thrown
 * rolls the whole report back, the capture included: the report comes again and captures once.
 */
export async function onOrderDeliveries(
  ctx: WalletOrdersDeps,
  tx: Tx,
  outcomes: ChainOutcome[],
): Promise<void> {
  const byOrder = new Map(outcomes.map((outcome) => [outcome.reference.slice('order:'.length), outcome]));
  const processing = (await lockWorkerOrders(tx, [...byOrder.keys()])).filter(
    (order) => order.status === 'PROCESSING',
  );
  const delivered = processing.filter((order) => byOrder.get(order.id)!.status === 'CONFIRMED');
  if (delivered.length > 0) {
    await completeOrderTransfers(
      ctx,
      tx,
      delivered.map((order) => ({
        transferId: order.transfer_id,
        blockchainTx: byOrder.get(order.id)!.blockchainTx ?? null,
      })),
    );
    await completeDelivered(ctx, tx, delivered);
  }
  for (const failed of processing.filter((o) => byOrder.get(o.id)!.status === 'FAILED')) {
    const reason = byOrder.get(failed.id)!.failureReason ?? 'chain failure';
    const order = (await lockOrder(tx, failed.id))!;
    await failOrder(ctx, tx, order, deliveryFailure(reason, order.captured_at !== null));
  }
}

/**
 * Delivered orders to COMPLETE: the cards not captured yet (the sweep captured the others) are
 * captured together, and each order's delivery entry is booked with its capture entry, if any, in
 * the status change. Holds settled together share their currency: one statement per source
 * currency of the orders to capture (the orders captured before go with the first), one in all
 * when there is none.
 */
async function completeDelivered(ctx: WalletOrdersDeps, tx: Tx, delivered: WorkerOrderRow[]): Promise<void> {
  const toCapture = delivered.filter((order) => order.captured_at === null);
  if (toCapture.length > 0) {
    await ctx.cardProcessor.capture(
      tx,
      toCapture.map((order) => order.id),
    );
  }
  const groups = new Map<string, { captures: WorkerOrderRow[]; others: WorkerOrderRow[] }>();
  for (const order of toCapture) {
    const group = groups.get(order.source_currency) ?? { captures: [], others: [] };
    group.captures.push(order);
    groups.set(order.source_currency, group);
  }
  const capturedBefore = delivered.filter((order) => order.captured_at !== null);
  if (capturedBefore.length > 0) {
    const first = groups.values().next().value;
    if (first) first.others.push(...capturedBefore);
    else groups.set('', { captures: [], others: capturedBefore });
  }
  for (const { captures, others } of groups.values()) {
    const orders = [...captures, ...others];
    const settling = captures.map(captureEntry);
    const entries = [
      ...settling.map((capture) => entryArguments(capture.entry)),
      ...orders.map((order) => entryArguments(deliveryEntry(order, ctx.chains.network))),
    ];
    const booked = {
      entries: combinedEntries(entries),
      ...(settling.length > 0 ? { holdIds: settling.map((capture) => capture.holdId) } : {}),
    };
    const changed = await setStatuses(tx, orders, booked, 'COMPLETE', ctx.clock.nowMs());
    for (const row of changed) await notifyOrderStatus(ctx, tx, row, 'COMPLETE');
  }
}

/** The order's crypto on its way to the address it names. */
function chainSendOf(ctx: WalletOrdersDeps, order: WorkerOrderRow): ChainSend {
  const { chain, address } = parseChainSrn(order.dest, 'dest', ctx.chains.network);
  return {
    reference: `order:${order.id}`,
    chain,
    address,
    currency: order.dest_currency,
    amount: new Money(order.dest_amount),
  };
}
