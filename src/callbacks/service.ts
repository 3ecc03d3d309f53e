import { partnerIdOf } from '../identity/index.ts';
import type { Queryable, Tx } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { serializeJson } from '../platform/json.ts';
import { insertDelivery, queueTransferCreated, type TransferCreatedArguments } from './deliveries-store.ts';
import { type CallbackUrlDeps, parseNotifyUrl } from './url-policy.ts';

export type { TransferCreatedArguments } from './deliveries-store.ts';
// The contract other modules code against: transferCreatedArguments (transfers and card orders
// queue callbacks in the statement that writes the transfer), enqueueDelivery (wallet-order
// webhooks) and assertNotifyUrlAllowed.
export { assertNotifyUrlAllowed } from './url-policy.ts';

export interface TransferCreated {
  accountId: string;
  /** The account's partner when the caller already knows it (saves a lookup per transfer). */
  partnerId?: string;
  transferId: string;
  owner: string;
  notifyUrl?: string;
  parties?: string[];
}

/**
 * For a caller that writes the transfer in statements of its own, inside `tx` (today the callback
 * tests; transfers and card orders pass transferCreatedArguments to their own statement): creates
 * the implicit subscription for
 * `notifyUrl` (when given) and queues a delivery of `{subscriptionId, trigger: "transfer:TF_…"}`
 * for it and for every active subscription of the partner to the transfer, its account, its
 * owner and, when given, its source and dest `parties` (e.g. `user:US_…`). The caller checks
 * `notifyUrl` with assertNotifyUrlAllowed before its transaction (that check resolves DNS); here
 * only its shape is checked again, and the worker checks the address it connects to.
 * One round trip: the SQL function callbacks_queue_transfer_created (migration 010) does it all.
 */
export async function notifyTransferCreated(
  ctx: CallbackUrlDeps,
  tx: Tx,
  transfer: TransferCreated,
): Promise<void> {
  const partnerId = transfer.partnerId ?? (await requirePartner(tx, transfer.accountId));
  await queueTransferCreated(tx, transferCreatedArguments(ctx, { ...transfer, partnerId }));
}

/**
 * notifyTransferCreated's work as the arguments of callbacks_queue_transfer_created (migration
 * 010), for a module that creates the transfer and its callbacks in one statement of its own.
 */
export function transferCreatedArguments(
  ctx: CallbackUrlDeps,
  transfer: TransferCreated & { partnerId: string },
): TransferCreatedArguments {
  const trigger = `transfer:${transfer.transferId}`;
  const withUrl = transfer.notifyUrl !== undefined;
  return {
    partnerId: transfer.partnerId,
    accountId: transfer.accountId,
    trigger,
    srns: [trigger, `account:${transfer.accountId}`, transfer.owner, ...(transfer.parties ?? [])],
    implicitId: withUrl ? newId('DA') : null,
    notifyUrl: withUrl ? parseNotifyUrl(ctx, transfer.notifyUrl!, 'notifyUrl').toString() : null,
    createdAt: ctx.clock.now(),
    maxAttempts: 1 + ctx.config.callbackRetries,
  };
}

/**
 * Queues one signed delivery of `body` to `url` for `accountId` (wallet-order webhooks use
 * this): stored, attempted by the worker, listed and resent by the operator like callbacks.
 * The caller has checked `url` with assertNotifyUrlAllowed when it was given to us.
 */
export async function enqueueDelivery(
  ctx: CallbackUrlDeps,
  tx: Tx,
  delivery: { accountId: string; subscriptionId: string | null; trigger: string; url: string; body: unknown },
): Promise<void> {
  const partnerId = await requirePartner(tx, delivery.accountId);
  await queueDelivery(ctx, tx, partnerId, delivery);
}

async function queueDelivery(
  ctx: CallbackUrlDeps,
  tx: Queryable,
  partnerId: string,
  delivery: { subscriptionId: string | null; trigger: string; url: string; body: unknown },
): Promise<void> {
  await insertDelivery(tx, {
    id: newId('CB'),
    partner_id: partnerId,
    subscription_id: delivery.subscriptionId,
    trigger: delivery.trigger,
    url: delivery.url,
    body: serializeJson(delivery.body),
    max_attempts: 1 + ctx.config.callbackRetries,
  });
}

async function requirePartner(q: Queryable, accountId: string): Promise<string> {
  const partnerId = await partnerIdOf(q, accountId);
  if (partnerId === undefined) throw new Error(`callbacks: unknown account ${accountId}`);
  return partnerId;
}
