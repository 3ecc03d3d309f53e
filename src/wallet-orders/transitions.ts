import { cardProcessor } from '../cards/service.ts';
import { networkFor, parseChainSrn } from '../chains/addresses.ts';
import { type ChainOutcome, requestChainSend } from '../chains/port.ts';
import { releaseSpend } from '../limits/service.ts';
import type { AppContext } from '../platform/context.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import {
  completeOrderTransfer,
  failOrderTransfer,
  recordOrderTransfer,
} from '../transfers/order-transfers.ts';
import { deliveryOf } from './delivery-transfer.ts';
import type { Failure } from './errors.ts';
import { postCapture, postDelivery, postRefund, releaseCardHold } from './ledger.ts';
import { findAuthorization, lockOrder, type OrderRow, setStatus, updateAuthorization } from './store.ts';
import { notifyOrderStatus } from './webhooks.ts';

/**
 * Order state changes, each under the order's row lock in one transaction with its ledger
 * entries, processor calls and webhook: RUNNING_CHECKS → PROCESSING → COMPLETE, or → FAILED.
 * From PROCESSING on, the order's delivery transfer (transfers/order-transfers.ts) follows it in
 * the same transactions: PENDING, then COMPLETED or FAILED.
 * Every function first re-reads the status, so a repeated job or outcome changes nothing.
 */

async function moveTo(
  ctx: AppContext,
  tx: Tx,
  order: OrderRow,
  change: { status: OrderRow['status']; transferId?: string; failure?: Failure },
): Promise<OrderRow> {
  await setStatus(tx, order.id, { ...change, nowMs: ctx.clock.nowMs() });
  const updated = (await lockOrder(tx, order.id))!;
  await notifyOrderStatus(ctx, tx, updated, change.status);
  return updated;
}

/**
 * Before capture: void the authorization and the ledger hold, release the limits spend. After
 * capture (delivery failed): refund the card and reverse the capture entries.
 */
export async function failOrder(ctx: AppContext, tx: Tx, order: OrderRow, failure: Failure): Promise<void> {
  if (order.status === 'COMPLETE' || order.status === 'FAILED') return;
  const processor = cardProcessor(ctx);
  if (order.status === 'RUNNING_CHECKS') {
    await processor.void(tx, order.id);
    await releaseCardHold(tx, order);
    const authorization = await findAuthorization(tx, order.id);
    if (authorization?.state === 'PENDING')
      await updateAuthorization(tx, order.id, { state: 'FAILED' }, ctx.clock.nowMs());
  } else {
    await processor.refund(tx, order.id);
    await postRefund(tx, order);
    await failOrderTransfer(ctx, tx, order.transfer_id, failure.message);
  }
  await releaseSpend(tx, order.id);
  await moveTo(ctx, tx, order, { status: 'FAILED', failure });
}

/**
 * The worker's step once checks passed: capture the card, take the fee, then deliver. Custody
 * destinations are credited at once (COMPLETE); a chain address gets a send through the chains
 * port and the order stays PROCESSING until the chain reports.
 */
export async function processOrder(ctx: AppContext, orderId: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const order = await lockOrder(tx, orderId);
    if (order?.status !== 'RUNNING_CHECKS') return;
    const authorization = await findAuthorization(tx, orderId);
    if (authorization && authorization.state !== 'PASSED') return;
    await cardProcessor(ctx).capture(tx, orderId);
    await postCapture(tx, order);
    const transferId = await recordOrderTransfer(ctx, tx, deliveryOf(order));
    const processing = await moveTo(ctx, tx, order, { status: 'PROCESSING', transferId });
    if (isCustody(order.dest)) {
      await postDelivery(tx, processing, ctx.config.env);
      await completeOrderTransfer(ctx, tx, transferId, null);
      await moveTo(ctx, tx, processing, { status: 'COMPLETE' });
      return;
    }
    const { chain, address } = parseChainSrn(order.dest, 'dest', networkFor(ctx.config.env));
    await requestChainSend(ctx, tx, {
      reference: `order:${order.id}`,
      chain,
      address,
      currency: order.dest_currency,
      amount: new Money(order.dest_amount),
    });
  });
}

const isCustody = (dest: string) => dest.startsWith('account:') || dest.startsWith('AC_');

/** The chains port's report on an order's send (registered for `order:` references). */
export async function onOrderDelivery(ctx: AppContext, tx: Tx, outcome: ChainOutcome): Promise<void> {
  const orderId = outcome.reference.slice('order:'.length);
  const order = await lockOrder(tx, orderId);
  if (order?.status !== 'PROCESSING') return;
  if (outcome.status === 'CONFIRMED') {
    await postDelivery(tx, order, ctx.config.env);
    await completeOrderTransfer(ctx, tx, order.transfer_id, outcome.blockchainTx ?? null);
    await moveTo(ctx, tx, order, { status: 'COMPLETE' });
    return;
  }
  await failOrder(ctx, tx, order, {
    code: 'transfer.deliveryFailed',
    message: `The crypto could not be delivered (${(outcome.failureReason ?? 'chain failure').slice(0, 200)}); the card was refunded.`,
  });
}
