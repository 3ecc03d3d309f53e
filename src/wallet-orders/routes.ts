import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/access.ts';
import type { AppContext } from '../platform/context.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY } from '../platform/http/openapi.ts';
import { prepareWalletOrder, storeWalletOrder } from './create.ts';
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

export const walletOrderRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: ProcessBody }>(
    '/v3/debitcard/process/partner',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'White-label card order from a reservation: authorises the card, returns the WalletOrder',
        body: ProcessBody,
        response: { 200: WalletOrderSchema, ...errorResponses(400, 401, 403, 409, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const order = parseProcessBody(request.body, ctx.clock.nowMs());
      const prepared = await prepareWalletOrder(ctx, scope, order);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        storeWalletOrder(ctx, tx, prepared),
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
        params: OrderParams,
        response: { 200: WalletOrderSchema, ...errorResponses(400, 401, 403, 404, 429) },
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
        params: OrderParams,
        response: { 200: AuthorizationAnswer, ...errorResponses(400, 401, 403, 404, 429) },
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
        body: AuthorizeBody,
        response: { 200: AuthorizeAnswer, ...errorResponses(400, 401, 403, 404, 429) },
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
        body: WebhookBody,
        response: { 200: WebhookBody, ...errorResponses(400, 401, 403, 409, 422, 429) },
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
