import {
  type ConnectorResult,
  findPayment,
  lockOperation,
  type OperationKind,
  type OperationRow,
  paymentKey,
  updateOperation,
  updatePayment,
} from '../cards/index.ts';
import { postEntry } from '../ledger/index.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { findOrder } from './store.ts';

/**
 * A remote payment's capture, void or refund, made by its job after the COMMIT that asked for it
 * (docs/contract.md decision 104): the call carries paymentKey(order, kind, n), so a retry after
 * any crash asks the same question and gets the first answer. The answer is recorded on the
 * operation: done; unconfirmed (the job runs again, backing off, same key); or refused for good,
 * recorded and surfaced (the operation FAILED with the processor's words, the job's failure
 * logged), a refused capture booking its loss (decision 106).
 */
export async function runPaymentOperation(
  ctx: WalletOrdersDeps,
  orderId: string,
  kind: OperationKind,
  n: number,
): Promise<void> {
  const connector = ctx.cardProcessor.remote;
  if (!connector) throw new Error('card payment operations need a remote card processor');
  const op = await withTransaction(ctx.db, (tx) => lockOperation(tx, orderId, kind, n));
  if (op?.state !== 'REQUESTED') return;
  const payment = await findPayment(ctx.db, orderId);
  if (!payment) return;
  const reference = payment.reference;
  if (reference === null) {
    // The authorize's answer never arrived: the poll (or this job's next run) learns it first.
    throw new Error(`the payment of order ${orderId} has no processor reference yet`);
  }
  const key = paymentKey(orderId, kind, n);
  const amount = new Money(op.amount ?? payment.amount);
  const answer: ConnectorResult<{ reference: string; refused?: boolean }> =
    kind === 'capture'
      ? await connector.capture({ idempotencyKey: key, reference, amount, currency: payment.currency })
      : kind === 'void'
        ? await connector.void({ idempotencyKey: key, reference })
        : await refundAnswer(
            await connector.refund({ idempotencyKey: key, reference, amount, currency: payment.currency }),
          );
  const refusal = await withTransaction(ctx.db, (tx) => recordAnswer(tx, op, answer));
  if (refusal) throw new Error(refusal);
}

/** A refund the processor reports FAILED is a refusal like any other. */
async function refundAnswer(
  answer: ConnectorResult<{ reference: string; status: string }>,
): Promise<ConnectorResult<{ reference: string; refused?: boolean }>> {
  if (answer.ok && answer.value.status === 'FAILED') {
    return { ok: false, unconfirmed: false, refused: `refund ${answer.value.reference} failed` };
  }
  return answer;
}

/**
 * The answer under the operation's lock (a concurrent run recorded first: nothing more). Answers
 * the message the job fails with: unconfirmed (it runs again) or refused (surfaced once).
 */
async function recordAnswer(
  tx: Tx,
  requested: OperationRow,
  answer: ConnectorResult<{ reference: string }>,
): Promise<string | undefined> {
  const op = await lockOperation(tx, requested.order_id, requested.kind, requested.n);
  if (op?.state !== 'REQUESTED') return undefined;
  const where = `${op.kind} ${op.n} of order ${op.order_id}`;
  if (answer.ok) {
    await updateOperation(tx, op, {
      state: 'DONE',
      attempts: op.attempts + 1,
      reference: answer.value.reference,
    });
    if (op.kind === 'capture') await updatePayment(tx, op.order_id, { state: 'CAPTURED' });
    if (op.kind === 'void') await updatePayment(tx, op.order_id, { state: 'VOIDED' });
    return undefined;
  }
  if (answer.unconfirmed) {
    await updateOperation(tx, op, { attempts: op.attempts + 1, detail: answer.detail.slice(0, 500) });
    return `${where} unconfirmed: ${answer.detail}`;
  }
  await updateOperation(tx, op, {
    state: 'FAILED',
    attempts: op.attempts + 1,
    detail: answer.refused.slice(0, 500),
  });
  if (op.kind === 'capture') await bookRefusedCapture(tx, op);
  return `${where} refused by the processor: ${answer.refused}`;
}

/** Where the money of a capture the processor refused is booked (decision 106). */
export const CARD_LOSSES = 'house:card-losses';

/**
 * The order's capture entry said the card network owes the charge (external:card); the processor
 * refused to collect it, so the house carries the loss: external:card is made whole from
 * house:card-losses, and the operator sees both the FAILED operation and the loss account.
 */
async function bookRefusedCapture(tx: Tx, op: OperationRow): Promise<void> {
  const order = await findOrder(tx, op.order_id);
  // Only a capture the ledger booked (captured_at) said the network owes the charge.
  if (!order || order.captured_at === null) return;
  const amount = new Money(op.amount ?? order.source_amount);
  await postEntry(tx, {
    kind: 'order.captureRefused',
    reference: `order:${order.id}`,
    memo: 'the card processor refused the capture',
    postings: [
      { owner: 'external:card', currency: order.source_currency, amount },
      { owner: CARD_LOSSES, currency: order.source_currency, amount: amount.negated() },
    ],
  });
}
