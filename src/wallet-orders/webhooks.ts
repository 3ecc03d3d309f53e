import { assertNotifyUrlAllowed, enqueueDelivery } from '../callbacks/index.ts';
import type { Scope } from '../identity/index.ts';
import { isOwnAccount } from '../orders/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { invalidValue } from '../platform/errors.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { type OrderStatusEvent, saveOrderWebhook } from './store.ts';

/**
 * POST /v2/digitalwallet/webhook (docs/contract.md, Card orders): where an account's wallet-order events go. The
 * owner must be the acting account or one of its sub-accounts; the URL passes the callbacks
 * module's policy (https and public addresses in production). A new call replaces the old URL.
 */
export async function registerWebhook(
  ctx: WalletOrdersDeps,
  tx: Tx,
  scope: Scope,
  body: { owner: string; webhook: string },
): Promise<{ owner: string; webhook: string }> {
  const accountId = body.owner.startsWith('account:') ? body.owner.slice('account:'.length) : body.owner;
  if (!(await isOwnAccount(ctx, scope, accountId))) {
    throw invalidValue(
      'owner',
      'owner must be account:AC_… naming your account or one of your sub-accounts.',
    );
  }
  await assertNotifyUrlAllowed(ctx, body.webhook, 'webhook');
  const nowMs = ctx.clock.nowMs();
  await saveOrderWebhook(tx, { accountId, partnerId: scope.partnerId, url: body.webhook, nowMs });
  return { owner: `account:${accountId}`, webhook: body.webhook };
}

/**
 * The payload of docs/contract.md, Card orders,, queued in the transaction of the status change it reports, to the target
 * the change's own statement found (setStatus: the order's account's, else its partner's).
 */
export async function notifyOrderStatus(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderStatusEvent,
  status: string,
): Promise<void> {
  if (order.webhook_account_id === null || order.webhook_url === null) return;
  const body: Record<string, unknown> = {
    referenceId: order.reference_id,
    accountId: order.account_id,
    orderId: order.id,
    orderStatus: status,
  };
  if (order.transfer_id) body.transferId = order.transfer_id;
  if (status === 'FAILED') {
    body.failedReason = order.error_message;
    body.error = { errorCategory: 'GENERAL', errorCode: order.error_code, errorMessage: order.error_message };
  }
  await enqueueDelivery(ctx, tx, {
    accountId: order.webhook_account_id,
    subscriptionId: null,
    trigger: `order:${order.id}`,
    url: order.webhook_url,
    body,
  });
}
