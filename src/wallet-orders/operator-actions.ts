import type { DisputeAction } from '../cards/index.ts';
import { auditOperatorChange, type OperatorAct } from '../operator/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { forbidden } from '../platform/errors.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { onDisputeEvent } from './disputes.ts';
import { walletOrderErrors } from './errors.ts';
import { type OperatorRefundInput, operatorRefundView, refundByOperator } from './refunds.ts';
import { findOrder } from './store.ts';

/** The operator's calls on card orders, each audited in its own change's transaction. */

/** POST /operator/v1/orders/{orderId}/refunds (docs/contract.md, decisions 114 and 115). */
export async function operatorRefund(
  ctx: WalletOrdersDeps,
  tx: Tx,
  act: OperatorAct,
  orderId: string,
  input: OperatorRefundInput,
) {
  const row = await refundByOperator(ctx, tx, orderId, input);
  await auditOperatorChange(tx, act, `order:${orderId}`, {
    refundId: row.id,
    amount: row.amount,
    currency: row.currency,
    requestedBy: input.requestedBy,
    reason: input.reason ?? null,
  });
  return operatorRefundView(row);
}

/**
 * POST /operator/v1/sandbox/orders/{orderId}/disputes (decision 119): the sandbox processor
 * opens, wins or loses a dispute and its event goes through onDisputeEvent, as a remote
 * processor's webhook does.
 */
export async function simulateDispute(
  ctx: WalletOrdersDeps,
  tx: Tx,
  act: OperatorAct,
  orderId: string,
  action: DisputeAction,
) {
  const simulate = ctx.cardProcessor.simulateDispute;
  if (!simulate) throw forbidden('Disputes are simulated only in sandbox.', 'accessDenied.sandboxOnly');
  if (!(await findOrder(tx, orderId))) throw walletOrderErrors.notFound();
  const event = await simulate(tx, orderId, action);
  if (!event) {
    throw walletOrderErrors.disputeNotPossible(
      action === 'OPEN'
        ? 'The order’s charge was never captured: there is nothing to dispute.'
        : 'The order has no open dispute to close that way.',
    );
  }
  await onDisputeEvent(ctx, tx, event);
  await auditOperatorChange(tx, act, `order:${orderId}`, {
    dispute: event.dispute.reference,
    event: event.kind,
  });
  const order = (await findOrder(tx, orderId))!;
  return {
    orderId,
    orderStatus: order.status,
    event: event.kind,
    reference: event.dispute.reference,
    amount: event.dispute.amount,
    currency: event.dispute.currency,
  };
}
