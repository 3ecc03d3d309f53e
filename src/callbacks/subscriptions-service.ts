import {
  checkAccountVisible,
  resolveMasquerade,
  type Scope,
  type UserOwnerLookup,
  webhookSecretOf,
} from '../identity/index.ts';
import { type Queryable, type Tx, withTransaction } from '../platform/db/pool.ts';
import { ApiError } from '../platform/errors.ts';
import { isId, newId } from '../platform/ids.ts';
import { callbackErrors } from './errors.ts';
import { MAX_SUBSCRIPTIONS_PER_PARTNER } from './limits.ts';
import {
  countExplicitSubscriptions,
  deleteSubscription,
  findSubscription,
  insertSubscription,
  listSubscriptions,
  lockPartnerSubscriptions,
  type SubscriptionFilter,
  type SubscriptionRow,
} from './subscriptions-store.ts';
import { assertNotifyUrlAllowed, type CallbackUrlDeps, parseNotifyUrl } from './url-policy.ts';

/** docs/contract.md, Subscriptions and callbacks: `{id, subscribed, notifyTarget, createdAt, failure, failCount}`. */
export function subscriptionView(row: SubscriptionRow) {
  return {
    id: row.id,
    subscribed: row.subscribe_to,
    notifyTarget: row.notify_target,
    createdAt: row.created_at,
    failure: row.failure,
    failCount: row.fail_count,
  };
}

/**
 * Does this transfer belong to the scope? The transfers module's answer (it owns the table),
 * handed to callbacks by the composition root.
 */
export type TransferVisibility = (scope: Scope, transferId: string) => Promise<boolean>;

/** What the subscription functions are given besides the base context. */
export interface SubscriptionsDeps extends CallbackUrlDeps {
  userOwners: UserOwnerLookup;
  transferVisible: TransferVisibility;
}

/** A master acting as itself sees the partner's subscriptions; a masqueraded account only its own. */
function filterOf(scope: Scope): SubscriptionFilter {
  return { partnerId: scope.partnerId, accountId: scope.masqueraded ? scope.accountId : undefined };
}

/**
 * The SRN in its canonical form, once the scope is shown to own it: its own account or (not
 * masquerading as a user) a sub-account; a user of the acting account; a transfer it can read.
 * Unknown and foreign SRNs get the same answer, so nothing tells whether another partner's exists.
 */
async function ownedSrn(ctx: SubscriptionsDeps, q: Queryable, scope: Scope, raw: string): Promise<string> {
  const colon = raw.indexOf(':');
  const type = colon === -1 ? 'account' : raw.slice(0, colon).toLowerCase();
  const id = colon === -1 ? raw : raw.slice(colon + 1);
  const owned = await isOwned(ctx, q, scope, type, id).catch((error: unknown) => {
    if (error instanceof ApiError && (error.status === 404 || error.status === 403)) return false;
    throw error;
  });
  if (!owned) throw callbackErrors.unknownSrn();
  return `${type}:${id}`;
}

async function isOwned(ctx: SubscriptionsDeps, q: Queryable, scope: Scope, type: string, id: string) {
  if (type === 'account') {
    if (!isId(id, 'AC')) throw callbackErrors.unsupportedSrn();
    await checkAccountVisible(ctx, scope, id);
    return true;
  }
  if (type === 'user') {
    if (!isId(id, 'US')) throw callbackErrors.unsupportedSrn();
    if (scope.userId !== undefined) return scope.userId === id;
    const acting = {
      id: scope.accountId,
      partnerId: scope.partnerId,
      kind: 'master' as const,
      usersApiEnabled: true,
    };
    await resolveMasquerade(ctx.userOwners, q, acting, { kind: 'user', id });
    return true;
  }
  if (type === 'transfer') {
    if (!isId(id, 'TF')) throw callbackErrors.unsupportedSrn();
    return ctx.transferVisible(scope, id);
  }
  throw callbackErrors.unsupportedSrn();
}

export interface SubscriptionInput {
  subscribeTo: string;
  notifyTarget: string;
}

/** Checks everything that needs no transaction (DNS included) before the caller opens one. */
export async function checkSubscription(ctx: SubscriptionsDeps, input: SubscriptionInput): Promise<void> {
  await assertNotifyUrlAllowed(ctx, input.notifyTarget, 'notifyTarget');
}

export async function createSubscription(
  ctx: SubscriptionsDeps,
  tx: Tx,
  scope: Scope,
  input: SubscriptionInput,
) {
  const subscribeTo = await ownedSrn(ctx, tx, scope, input.subscribeTo);
  const notifyTarget = parseNotifyUrl(ctx, input.notifyTarget, 'notifyTarget').toString();
  // Serialises a partner's creations, so the count below cannot be raced past the limit.
  await lockPartnerSubscriptions(tx, scope.partnerId);
  if ((await countExplicitSubscriptions(tx, scope.partnerId)) >= MAX_SUBSCRIPTIONS_PER_PARTNER)
    throw callbackErrors.tooManySubscriptions();
  const row = await insertSubscription(tx, {
    id: newId('DA'),
    partner_id: scope.partnerId,
    account_id: scope.accountId,
    subscribe_to: subscribeTo,
    notify_target: notifyTarget,
    implicit: false,
    created_at: ctx.clock.now(),
  });
  return subscriptionView(row);
}

export async function listPartnerSubscriptions(
  ctx: SubscriptionsDeps,
  scope: Scope,
  offset: number,
  limit: number,
) {
  const { rows, total } = await listSubscriptions(ctx.db, filterOf(scope), offset, limit);
  return { data: rows.map(subscriptionView), position: offset, recordsTotal: total, recordsFiltered: total };
}

export async function getSubscription(ctx: SubscriptionsDeps, scope: Scope, id: string) {
  const row = isId(id, 'DA') ? await findSubscription(ctx.db, filterOf(scope), id) : undefined;
  if (!row) throw callbackErrors.subscriptionNotFound();
  return subscriptionView(row);
}

/** Deleting stops future callbacks; deliveries already queued still go out. Answers the deleted subscription. */
export async function removeSubscription(ctx: SubscriptionsDeps, scope: Scope, id: string) {
  return withTransaction(ctx.db, async (tx) => {
    const row = isId(id, 'DA') ? await findSubscription(tx, filterOf(scope), id) : undefined;
    if (!row || !(await deleteSubscription(tx, filterOf(scope), id, ctx.clock.now())))
      throw callbackErrors.subscriptionNotFound();
    return subscriptionView(row);
  });
}

/** docs/contract.md, decision 10: the partner's signing secret, for the master account's own keys only. */
export async function signingSecret(ctx: SubscriptionsDeps, scope: Scope) {
  if (scope.caller.account?.id !== scope.partnerId) throw callbackErrors.masterOnly();
  return { webhookSecret: await webhookSecretOf(ctx, ctx.db, scope.partnerId) };
}
