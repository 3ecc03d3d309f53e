import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/access.ts';

import { TransactionSteps } from '../platform/db/grouped-transactions.ts';
import { hasIdempotencyKey, runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import { placeWalletOrder, prepareWalletOrder, storeWalletOrder } from './create.ts';
import type { WalletOrdersDeps } from './deps.ts';
import {
  authorizationAnswer,
  authorizeAnswer,
  authorizeRequest,
  completeOrderAnswer,
  processRequest,
  runningOrderAnswer,
  webhookRequest,
} from './examples.ts';
import {
  AuthorizationAnswer,
  AuthorizeAnswer,
  AuthorizeBody,
  OrderParams,
  ProcessBody,
  parseProcessBody,
  WalletOrderSchema,
  WebhookBody,
} from './schemas.ts';
import { authorizationState, readWalletOrder, submitAuthorizationCodes } from './service.ts';
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
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Params: { orderId: string } }>(
    '/v3/orders/:orderId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'A wallet order: RUNNING_CHECKS → PROCESSING → COMPLETE, or FAILED',
        description:
          'A key of the partner whose order it is. While RUNNING_CHECKS with `authCodesRequested`, ask GET /v3/debitcard/authorization/{orderId}; PROCESSING carries the `transferId` delivering the crypto; COMPLETE once it is on chain; FAILED says why in `errorCode` and `failureReason`, and the card hold is released. Other partners’ orders answer 404.',
        params: OrderParams,
        response: {
          200: withExample(WalletOrderSchema, completeOrderAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => readWalletOrder(ctx, request.params.orderId, { scope: scopeOf(request) }),
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
