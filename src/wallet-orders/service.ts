// The wallet-orders module's entry points (issue 7). The hosted checkout page and the partner
// routes both call these; the logic lives in create.ts, authorization.ts and transitions.ts.
import { partnerIdOf, type Scope } from '../identity/index.ts';
import { orderErrors, reservationForCheckout } from '../orders/index.ts';
import { expireAuthorization, submitCodes } from './authorization.ts';
import { prepareWalletOrder } from './create.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { walletOrderErrors } from './errors.ts';
import type { PreparedOrder, WalletOrderRequest } from './request.ts';
import { RESERVATION_REDIRECT } from './schemas.ts';
import { findAuthorization, findOrder, type OrderRow, orderPageAfter, pageOrders } from './store.ts';
import { threeDsCapability } from './three-ds-capability.ts';
import { fullOrderView, publicOrderView, walletOrderView } from './view.ts';

export type { BillingAddress, WalletOrderRequest } from './request.ts';

/** The WalletOrder of docs/contract.md, Card orders, as sent on the wire. */
export type WalletOrderView = Record<string, unknown> & { id: string; status: string };

export interface AuthorizationState {
  walletOrderId: string;
  smsNeeded: boolean;
  card2faNeeded: boolean;
  authorization3dsUrl: string | null;
}

/** Options for partner routes: restrict to the caller's partner (others' orders read as unknown). */
export interface CallerOptions {
  scope?: Scope;
}

/**
 * The scope the hosted page acts in: the account that made the reservation (the reservation id
 * is the page's capability). An unknown account reads like an unknown reservation.
 */
async function scopeForAccount(ctx: WalletOrdersDeps, accountId: string): Promise<Scope> {
  const partnerId = await partnerIdOf(ctx.db, accountId);
  if (!partnerId) throw orderErrors.illegalReservation();
  return {
    partnerId,
    accountId,
    masqueraded: false,
    caller: {
      apiKey: 'hosted-checkout',
      keyType: 'FULL',
      scheme: 'bearer',
      account: {
        id: accountId,
        partnerId,
        kind: accountId === partnerId ? 'master' : 'subaccount',
        usersApiEnabled: false,
      },
      ipWhitelist: [],
    },
  };
}

/**
 * Consumes the reservation, checks limits, authorises the card; returns the RUNNING_CHECKS order.
 * `partnerAccountId` is the account that made the reservation (hosted page); partner routes pass
 * their scope instead. Card declines, limits and reservation problems throw ApiError with Wyre's
 * errorCodes, and then nothing was stored (the reservation stays usable).
 */
export async function createWalletOrder(
  ctx: WalletOrdersDeps,
  partnerAccountId: string,
  request: WalletOrderRequest,
  options: CallerOptions = {},
): Promise<WalletOrderView> {
  const scope = options.scope ?? (await scopeForAccount(ctx, partnerAccountId));
  return ctx.orderPlacement.place(await prepareWalletOrder(ctx, scope, request));
}

/**
 * The hosted page's order in two steps, so that it can count the card attempt between them
 * (checkout/attempts.ts): every check that needs no reservation, card and address included, then
 * placing it as createWalletOrder does.
 */
export async function prepareHostedOrder(
  ctx: WalletOrdersDeps,
  partnerAccountId: string,
  request: WalletOrderRequest,
): Promise<PreparedOrder> {
  return prepareWalletOrder(ctx, await scopeForAccount(ctx, partnerAccountId), request);
}

export function placePreparedOrder(ctx: WalletOrdersDeps, prepared: PreparedOrder): Promise<WalletOrderView> {
  return ctx.orderPlacement.place(prepared);
}

async function visibleOrder(
  ctx: WalletOrdersDeps,
  orderId: string,
  options: CallerOptions,
): Promise<OrderRow> {
  const row = await findOrder(ctx.db, orderId, options.scope?.partnerId);
  if (!row) throw walletOrderErrors.notFound();
  return row;
}

/** A pending step past its expiry fails the order as soon as anyone looks (sandbox clock included). */
async function expireIfDue(ctx: WalletOrdersDeps, row: OrderRow): Promise<OrderRow> {
  if (row.status !== 'RUNNING_CHECKS' || row.auth_method === null) return row;
  const authorization = await findAuthorization(ctx.db, row.id);
  if (authorization?.state !== 'PENDING' || authorization.expires_at.getTime() > ctx.clock.nowMs())
    return row;
  await expireAuthorization(ctx, row.id);
  return (await findOrder(ctx.db, row.id))!;
}

/** GET /v3/orders/{orderId}; without a scope (hosted page) the order id is the capability. */
export async function readWalletOrder(
  ctx: WalletOrdersDeps,
  orderId: string,
  options: CallerOptions = {},
): Promise<WalletOrderView> {
  return readOrderBody(ctx, orderId, options);
}

export async function readOrderBody(ctx: WalletOrdersDeps, orderId: string, options: CallerOptions = {}) {
  const row = await expireIfDue(ctx, await visibleOrder(ctx, orderId, options));
  return walletOrderView(row);
}

/**
 * GET /v3/orders/{orderId}: the whole order for a caller of its partner; for a caller without
 * credentials (no scope), the public view, where the order id is the capability as it was for
 * Wyre's UIs (docs/contract.md, Card orders).
 */
export async function readOrderFor(ctx: WalletOrdersDeps, orderId: string, scope: Scope | undefined) {
  if (scope) return readOrderBody(ctx, orderId, { scope });
  return publicOrderView(await expireIfDue(ctx, await visibleOrder(ctx, orderId, {})));
}

/** GET /v3/orders/{orderId}/full (docs/contract.md decision 40). */
export async function readFullOrder(ctx: WalletOrdersDeps, orderId: string, scope: Scope) {
  return fullOrderView(await expireIfDue(ctx, await visibleOrder(ctx, orderId, { scope })));
}

const DEFAULT_PAGE = 25;

/**
 * GET /v3/orders/list (docs/contract.md decision 41): the acting account's card orders, newest
 * first, in full; masquerading as a user, only the orders that user bought. A list only reads:
 * a step past its expiry fails its order when that order itself is read.
 */
export async function listWalletOrders(
  ctx: WalletOrdersDeps,
  scope: Scope,
  query: { offset?: number | undefined; limit?: number | undefined },
) {
  const offset = query.offset ?? 0;
  const limit = query.limit ?? DEFAULT_PAGE;
  const filter = { partnerId: scope.partnerId, accountId: scope.accountId, ownerUserId: scope.userId };
  const { rows, total } = await pageOrders(ctx.db, filter, offset, limit);
  return { data: rows.map(fullOrderView), position: offset, recordsTotal: total, recordsFiltered: total };
}

/**
 * GET /v3/debitcard/authorization/{orderId}/with-redirection (docs/contract.md decision 42): the
 * same answer as authorizationState, but the 3-D Secure page behind its URL sends the buyer on
 * to the reservation's redirectUrl (approved) or failureRedirectUrl (declined or expired).
 */
export async function authorizationWithRedirection(
  ctx: WalletOrdersDeps,
  orderId: string,
  options: CallerOptions,
): Promise<AuthorizationState> {
  const state = await authorizationState(ctx, orderId, options);
  if (state.authorization3dsUrl === null) return state;
  return { ...state, authorization3dsUrl: `${state.authorization3dsUrl}?redirect=${RESERVATION_REDIRECT}` };
}

/** The reservation's own URLs of an order (redirectUrl, failureRedirectUrl), null where it named none. */
export async function reservationRedirects(ctx: WalletOrdersDeps, row: OrderRow) {
  const reservation = await reservationForCheckout(ctx, row.reservation_id);
  return {
    success: reservation?.view.redirectUrl ?? null,
    failure: reservation?.view.failureRedirectUrl ?? null,
  };
}

/**
 * Where the issuer page sends the buyer once the 3-D Secure step is decided, for a
 * with-redirection URL: the reservation's failureRedirectUrl when the order failed, else its
 * redirectUrl, with `orderId` appended; undefined when the reservation named none. The URLs come
 * from the partner's signed reservation (checked when reserving), never from the page's query.
 */
export async function threeDsRedirectTarget(ctx: WalletOrdersDeps, orderId: string) {
  const row = await findOrder(ctx.db, orderId);
  if (!row) return undefined;
  const redirects = await reservationRedirects(ctx, row);
  const target = row.status === 'FAILED' ? redirects.failure : redirects.success;
  if (!target) return undefined;
  const url = new URL(target);
  url.searchParams.set('orderId', row.id);
  return url.toString();
}

/**
 * The origins the with-redirection page's forms may end up at: browsers hold a form's redirect
 * to the page's `form-action`, so the reservation's URLs must be named there besides 'self'.
 */
export async function threeDsRedirectOrigins(ctx: WalletOrdersDeps, orderId: string): Promise<string[]> {
  const row = await findOrder(ctx.db, orderId);
  if (!row) return [];
  const { success, failure } = await reservationRedirects(ctx, row);
  return [...new Set([success, failure].flatMap((url) => (url ? [new URL(url).origin] : [])))];
}

export { threeDsCapabilityValid as threeDsTokenValid } from './three-ds-capability.ts';

/**
 * The 3-D Secure page behind `authorization3dsUrl`: the simulated issuer's, or for a remote
 * processor Rampart's own route that sends the buyer on to the issuer's challenge
 * (card-processor-routes.ts, docs/contract.md decision 103).
 */
function threeDsPath(ctx: WalletOrdersDeps, orderId: string): string {
  const prefix = ctx.cardProcessor.remote ? '/card-processor/3ds' : '/sandbox/3ds';
  return `${prefix}/${orderId}/${threeDsCapability(ctx, orderId)}`;
}

/**
 * GET /v3/debitcard/authorization/{orderId}: what the issuer still wants. Clients poll it from
 * the moment the order exists, so an order with no step waiting answers all false and null
 * (docs/contract.md, Card authorization): while its checks run without asking anything, once the
 * step is done, and once the order is PROCESSING, COMPLETE or FAILED; the order's status says
 * which. Only an order the caller cannot see is an error (404).
 * `authorization3dsUrl` is the simulated issuer page; append `?returnUrl=/same-origin/path`.
 */
export async function authorizationState(
  ctx: WalletOrdersDeps,
  orderId: string,
  options: CallerOptions = {},
): Promise<AuthorizationState> {
  const row = await expireIfDue(ctx, await visibleOrder(ctx, orderId, options));
  const a = row.auth_method === null ? undefined : await findAuthorization(ctx.db, row.id);
  const waiting = a?.state === 'PENDING' && row.status === 'RUNNING_CHECKS';
  const base = ctx.config.publicUrls[0];
  return {
    walletOrderId: row.id,
    smsNeeded: waiting && a.method === 'CODES' && !a.sms_verified,
    card2faNeeded: waiting && a.method === 'CODES' && a.card2fa_hash !== null && !a.card2fa_verified,
    authorization3dsUrl: waiting && a.method === '3DS' ? `${base}${threeDsPath(ctx, row.id)}` : null,
  };
}

/**
 * POST /v3/debitcard/authorize/partner. In sandbox both codes are "000000". A wrong code is
 * 400 `validation.authorizationCodeMismatch`; the fifth wrong one fails the order
 * (`validation.authorizationMaxAttempts`), as does submitting after 10 minutes
 * (`validation.authorizationCodeExpired`).
 */
export async function submitAuthorizationCodes(
  ctx: WalletOrdersDeps,
  input: {
    type: 'SMS' | 'CARD2FA' | 'ALL';
    walletOrderId: string;
    reservation: string;
    sms?: string;
    card2fa?: string;
    scope?: Scope;
  },
): Promise<{ walletOrderId: string; success: boolean }> {
  const { scope, ...rest } = input;
  return submitCodes(ctx, { ...rest, ...(scope ? { partnerId: scope.partnerId } : {}) });
}

/** The acting account's orders after the order `after`, newest first, each in full (keyset paging). */
export async function walletOrdersAfter(
  ctx: WalletOrdersDeps,
  scope: Scope,
  after: string | undefined,
  limit: number,
) {
  const filter = { partnerId: scope.partnerId, accountId: scope.accountId, ownerUserId: scope.userId };
  return (await orderPageAfter(ctx.db, filter, after, limit)).map(fullOrderView);
}
