import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/index.ts';

import { TransactionSteps } from '../platform/db/grouped-transactions.ts';
import {
  hasIdempotencyKey,
  ReplayedAnswer,
  runIdempotent,
  sendIdempotent,
} from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import { prepareApplePayOrder } from './apple-pay.ts';
import { ApplePayAnswer, ApplePayBody } from './apple-pay-schemas.ts';
import { afterOrderCommitted } from './card-payments.ts';
import { placeWalletOrder, prepareWalletOrder, storeWalletOrder } from './create.ts';
import type { WalletOrdersDeps } from './deps.ts';
import {
  applePayAnswer,
  applePayRequest,
  authorizationAnswer,
  authorizeAnswer,
  authorizeRequest,
  completeOrderAnswer,
  fullOrderAnswer,
  orderListAnswer,
  processRequest,
  redirectionAnswer,
  runningOrderAnswer,
  webhookRequest,
} from './examples.ts';
import {
  AuthorizationAnswer,
  AuthorizeAnswer,
  AuthorizeBody,
  FullWalletOrderSchema,
  OrderListAnswer,
  OrderListQuery,
  OrderParams,
  OrderReadAnswer,
  ProcessBody,
  parseProcessBody,
  WalletOrderSchema,
  WebhookBody,
} from './schemas.ts';
import {
  authorizationState,
  authorizationWithRedirection,
  listWalletOrders,
  readFullOrder,
  readOrderFor,
  submitAuthorizationCodes,
} from './service.ts';
import { registerWebhook } from './webhooks.ts';

const tags = ['Wallet orders'];

export const walletOrderRoutes: FastifyPluginAsync<{ ctx: WalletOrdersDeps }> = async (app, { ctx }) => {
  app.addHook('onClose', () => ctx.orderPlacement.close());
  app.post<{ Body: ProcessBody }>(
    '/v3/debitcard/process/partner',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'White-label card order from a reservation: authorises the card, returns the WalletOrder',
        description:
          'The partner that made the reservation. Pays a reservation with a Visa or Mastercard debit card: `amount` must equal the locked quote’s sourceAmount (400 `validation.amountMismatch`), fields locked by the reservation must match, and the billing address must be within the buyer’s card limits. Credit and prepaid cards, declines and failed address checks answer 400 with Wyre’s codes (`validation.unsupportedCardType.credit`, `validation.avs.zipcode`, `limits.dailyLimitReached`, …); a used or expired reservation answers 400 `illegalReservation`. Then poll GET /v3/orders/{orderId} or wait for the wallet-order webhook.',
        body: withExample(ProcessBody, processRequest),
        response: {
          200: withExample(WalletOrderSchema, runningOrderAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const order = parseProcessBody(request.body, ctx.clock.nowMs());
      const prepared = await prepareWalletOrder(ctx, scope, order);
      // A keyed request's answer is stored in its own transaction; the others go together.
      if (!hasIdempotencyKey(request)) return ctx.orderPlacement.place(prepared);
      const outcome = await placeWalletOrder(ctx, prepared, (attempt) =>
        runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
          storeWalletOrder(ctx, TransactionSteps.alone(tx), attempt),
        ),
      );
      // A remote processor is asked after COMMIT; a replay answers the order as it was stored
      // (docs/contract.md decision 101).
      if (outcome instanceof ReplayedAnswer) return sendIdempotent(reply, outcome);
      return sendIdempotent(reply, await afterOrderCommitted(ctx, outcome));
    },
  );

  app.post<{ Body: ApplePayBody }>(
    '/v3/apple-pay/process/partner',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Apple Pay order: the payment token pays a wallet order; answers its id',
        description:
          'A partner key; `partnerId` is its own account (400 `validation.invalidReferrerId` otherwise). `orderRequest` is the purchase (with `reservationId`, that reservation is used as a card order uses it; without, an unlocked one is made for `amount`, the total charged), `paymentObject` Apple’s payment: the billing contact gives the buyer’s name and billing address, the shipping contact its e-mail and phone. The order is a card order (walletType APPLE_PAY) with every rule of POST /v3/debitcard/process/partner; poll it with GET /v3/orders/{id}. In sandbox the token stands for the test card whose last four digits end `paymentMethod.displayName`. Without a card processor that takes Apple Pay: 503 `card.applePayNotConfigured`.',
        body: withExample(ApplePayBody, applePayRequest),
        response: {
          200: withExample(ApplePayAnswer, applePayAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const prepared = await prepareApplePayOrder(ctx, scope, request.body, request.ip);
      if (!hasIdempotencyKey(request)) return { id: (await ctx.orderPlacement.place(prepared)).id };
      const outcome = await placeWalletOrder(ctx, prepared, (attempt) =>
        runIdempotent(ctx, request, idempotencyScope(scope), async (tx) => ({
          id: (await storeWalletOrder(ctx, TransactionSteps.alone(tx), attempt)).id,
        })),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Params: { orderId: string } }>(
    '/v3/orders/:orderId',
    {
      // Wyre served this to UIs without credentials (docs/contract.md, Card orders).
      config: { auth: 'optional' },
      schema: {
        tags,
        security: [...PARTNER_SECURITY, {}],
        summary: 'A wallet order: RUNNING_CHECKS → PROCESSING → COMPLETE, or FAILED',
        description:
          'A key of the partner whose order it is gets the whole order. While RUNNING_CHECKS with `authCodesRequested`, ask GET /v3/debitcard/authorization/{orderId}; PROCESSING carries the `transferId` delivering the crypto; COMPLETE once it is on chain; FAILED says why in `errorCode` and `failureReason`, and the card hold is released. Other partners’ orders answer 404. Without any credentials (a buyer’s status page) it answers only `id, status, createdAt, sourceCurrency, sourceAmount, purchaseAmount, destCurrency, destAmount, dest, transferId, errorMessage`, never contact, address or card data; credentials that do not verify are still 401.',
        params: OrderParams,
        response: {
          200: withExample(OrderReadAnswer, completeOrderAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => readOrderFor(ctx, request.params.orderId, request.scope),
  );

  app.get<{ Querystring: OrderListQuery }>(
    '/v3/orders/list',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'The acting account’s wallet orders, newest first, each in full',
        description:
          'A partner key: its own account’s orders, or a sub-account’s through masqueradeAs; masquerading as a user, only the orders that user bought (`owner: user:US_…`). `offset` and `limit` (at most 100, default 25) page through them; each item is the GET /v3/orders/{orderId}/full view.',
        querystring: OrderListQuery,
        response: {
          200: withExample(OrderListAnswer, orderListAnswer),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => listWalletOrders(ctx, scopeOf(request), request.query),
  );

  app.get<{ Params: { orderId: string } }>(
    '/v3/orders/:orderId/full',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'A wallet order with its failure details',
        description:
          'A key of the partner whose order it is. The order of GET /v3/orders/{orderId} plus `errorCategory` (GENERAL once FAILED, else null), `paymentNetworkErrorCode` and `internalErrorCode` (always null: a card decline refuses the order before it exists). Other partners’ orders answer 404.',
        params: OrderParams,
        response: {
          200: withExample(FullWalletOrderSchema, fullOrderAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => readFullOrder(ctx, request.params.orderId, scopeOf(request)),
  );

  app.get<{ Params: { orderId: string } }>(
    '/v3/debitcard/authorization/:orderId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Which authorization the issuer wants: SMS / CARD2FA codes or a 3-D Secure page',
        description:
          'The partner whose order it is; may be polled from the moment the order exists. While no step waits (checks still running, the step done, or the order PROCESSING, COMPLETE or FAILED) it answers `smsNeeded: false, card2faNeeded: false, authorization3dsUrl: null`. Codes go to POST /v3/debitcard/authorize/partner; a non-null `authorization3dsUrl` must be opened by the buyer, on the device that placed the order. Codes and 3-D Secure are never asked together.',
        params: OrderParams,
        response: {
          200: withExample(AuthorizationAnswer, authorizationAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => authorizationState(ctx, request.params.orderId, { scope: scopeOf(request) }),
  );

  app.get<{ Params: { orderId: string } }>(
    '/v3/debitcard/authorization/:orderId/with-redirection',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'The authorization call for 3-D Secure with redirection back to the partner',
        description:
          'As GET /v3/debitcard/authorization/{orderId}, same answer; when 3-D Secure waits, the page behind `authorization3dsUrl` sends the buyer on once it is decided: to the reservation’s `redirectUrl` (approved) or `failureRedirectUrl` (declined or expired), with `orderId` appended. A reservation without those URLs shows the outcome page instead.',
        params: OrderParams,
        response: {
          200: withExample(AuthorizationAnswer, redirectionAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => authorizationWithRedirection(ctx, request.params.orderId, { scope: scopeOf(request) }),
  );

  app.post<{ Body: AuthorizeBody }>(
    '/v3/debitcard/authorize/partner',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Submit 6-digit SMS / CARD2FA codes (10 minutes, 5 attempts; failure fails the order)',
        description:
          'The partner whose order it is, with the order’s reservation id. `type` SMS needs `sms`, CARD2FA `card2fa`, ALL both. A wrong code answers 400 `validation.authorizationCodeMismatch` and counts an attempt; the fifth wrong code (`validation.authorizationMaxAttempts`) or codes after 10 minutes (`validation.authorizationCodeExpired`) fail the order and release the card hold. In sandbox the codes are 000000.',
        body: withExample(AuthorizeBody, authorizeRequest),
        response: {
          200: withExample(AuthorizeAnswer, authorizeAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => submitAuthorizationCodes(ctx, { ...request.body, scope: scopeOf(request) }),
  );

  app.post<{ Body: WebhookBody }>(
    '/v2/digitalwallet/webhook',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Where wallet-order events (PROCESSING, COMPLETE, FAILED) of an account are POSTed',
        description:
          'A partner key, for its own account or one of its sub-accounts (`owner`); a new call replaces the previous URL. Orders of an account without its own URL use the master account’s. The URL must pass the callback policy: https to a public address in production (400 otherwise). Events are signed like data-subscription callbacks.',
        body: withExample(WebhookBody, webhookRequest),
        response: {
          200: withExample(WebhookBody, webhookRequest),
          ...errorResponses(400, 401, 403, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        registerWebhook(ctx, tx, scope, request.body),
      );
      return sendIdempotent(reply, outcome);
    },
  );
};
