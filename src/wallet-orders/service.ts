// The wallet-orders module's entry points (issue 7). The hosted checkout page and the partner
// routes both call these; the logic lives in create.ts, authorization.ts and transitions.ts.
import { createHmac } from 'node:crypto';
import type { Scope } from '../identity/types.ts';
import { partnerIdOf } from '../identity/webhook-secret.ts';
import { orderErrors } from '../orders/errors.ts';
import { secretsEqual } from '../platform/crypto.ts';
import { expireAuthorization, submitCodes } from './authorization.ts';
import { prepareWalletOrder } from './create.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { walletOrderErrors } from './errors.ts';
import type { PreparedOrder, WalletOrderRequest } from './request.ts';
import { findAuthorization, findOrder, type OrderRow } from './store.ts';
import { walletOrderView } from './view.ts';

export type { BillingAddress, WalletOrderRequest } from './request.ts';

/** The WalletOrder of API.md / facts §1.9, as sent on the wire. */
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

/** The simulated issuer page's capability: HMAC of the order id, so nobody else can decide it. */
function threeDsToken(ctx: WalletOrdersDeps, orderId: string): string {
  const key = createHmac('sha256', ctx.config.masterKey).update('rampart sandbox 3ds v1').digest();
  return createHmac('sha256', key).update(orderId).digest('base64url').slice(0, 32);
}

export function threeDsTokenValid(ctx: WalletOrdersDeps, orderId: string, token: string): boolean {
  return secretsEqual(token, threeDsToken(ctx, orderId));
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
    card2faNeeded: waiting && a.method === 'CODES' && !a.card2fa_verified,
    authorization3dsUrl:
      waiting && a.method === '3DS' ? `${base}/sandbox/3ds/${row.id}/${threeDsToken(ctx, row.id)}` : null,
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
