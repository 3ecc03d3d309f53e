import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/access.ts';
import type { AppContext } from '../platform/context.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY } from '../platform/http/openapi.ts';
import {
  CreateSubscriptionBody,
  ListQuery,
  SigningSecret,
  Subscription,
  SubscriptionList,
  SubscriptionParams,
} from './schemas.ts';
import {
  checkSubscription,
  createSubscription,
  getSubscription,
  listPartnerSubscriptions,
  removeSubscription,
  signingSecret,
} from './subscriptions-service.ts';

const tags = ['Subscriptions'];

/** Data subscriptions (facts §1.10, spec §6): who gets a signed callback for what. */
export const callbackRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: CreateSubscriptionBody }>(
    '/v3/subscriptions',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Subscribe a URL to callbacks about an SRN you own',
        body: CreateSubscriptionBody,
        response: { 200: Subscription, ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      await checkSubscription(ctx, request.body);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        createSubscription(ctx, tx, scope, request.body),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Querystring: { offset?: number; limit?: number } }>(
    '/v3/subscriptions',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Your subscriptions, newest first (those made by a notifyUrl are not listed)',
        querystring: ListQuery,
        response: { 200: SubscriptionList, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) =>
      listPartnerSubscriptions(ctx, scopeOf(request), request.query.offset ?? 0, request.query.limit ?? 100),
  );

  app.get(
    '/v3/subscriptions/signingSecret',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: "The partner's callback signing secret (master account keys only)",
        response: { 200: SigningSecret, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => signingSecret(ctx, scopeOf(request)),
  );

  app.get<{ Params: { subscriptionId: string } }>(
    '/v3/subscriptions/:subscriptionId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'One subscription (implicit ones from notifyUrl included)',
        params: SubscriptionParams,
        response: { 200: Subscription, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => getSubscription(ctx, scopeOf(request), request.params.subscriptionId),
  );

  app.delete<{ Params: { subscriptionId: string } }>(
    '/v3/subscriptions/:subscriptionId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Delete a subscription: no further callbacks (queued ones still go out)',
        params: SubscriptionParams,
        response: { 200: Subscription, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => removeSubscription(ctx, scopeOf(request), request.params.subscriptionId),
  );
};
