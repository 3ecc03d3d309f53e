import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/index.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import {
  createSubscriptionRequest,
  signingSecretAnswer,
  subscriptionAnswer,
  subscriptionListAnswer,
} from './examples.ts';
import {
  CreateSubscriptionBody,
  ListQuery,
  SigningSecret,
  Subscription,
  SubscriptionList,
  SubscriptionParams,
} from './schemas.ts';
import type { SubscriptionsDeps } from './subscriptions-service.ts';
import {
  checkSubscription,
  createSubscription,
  getSubscription,
  listPartnerSubscriptions,
  removeSubscription,
  signingSecret,
} from './subscriptions-service.ts';

const tags = ['Subscriptions'];

/** Data subscriptions (docs/contract.md, Subscriptions and callbacks): who gets a signed callback for what. */
export const callbackRoutes: FastifyPluginAsync<{ ctx: SubscriptionsDeps }> = async (app, { ctx }) => {
  app.post<{ Body: CreateSubscriptionBody }>(
    '/v3/subscriptions',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Subscribe a URL to callbacks about an SRN you own',
        description:
          'A partner key, for its own account, a sub-account, one of its users or a transfer it can read. When a transfer involving it is created (as its account, owner, source or destination), `{"subscriptionId", "trigger"}` is POSTed to notifyTarget (`trigger` is the subscribed `account:AC_…` for a subscription to an account, otherwise `transfer:TF_…`), signed with X-Rampart-Signature (see GET /v3/subscriptions/signingSecret); fetch the transfer to see its state. Unknown and foreign SRNs answer the same 400 `validation.unknownSrn`; notifyTarget must be https to a public address in production (400 `validation.forbiddenCallbackHost`).',
        body: withExample(CreateSubscriptionBody, createSubscriptionRequest),
        response: {
          200: withExample(Subscription, subscriptionAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429),
        },
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
        description:
          'A master account key sees every subscription of its partner; acting as a sub-account (masqueradeAs), only that account’s. Paged with `offset` and `limit` (at most 100). Subscriptions made by a transfer’s notifyUrl are not listed but can be read by id.',
        querystring: ListQuery,
        response: {
          200: withExample(SubscriptionList, subscriptionListAnswer),
          ...errorResponses(400, 401, 403, 429),
        },
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
        description:
          'The key of the HMAC-SHA256 in every callback’s X-Rampart-Signature header, so a receiver can check a callback came from this service (the SDK’s verifyCallback does). Only the master account’s own keys, unmasqueraded; others get 403.',
        response: { 200: withExample(SigningSecret, signingSecretAnswer), ...errorResponses(401, 403, 429) },
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
        description:
          'A subscription of your partner (a masqueraded sub-account: its own), with the outcome of the last callback (`failure`, `failCount`). Others answer 404.',
        params: SubscriptionParams,
        response: {
          200: withExample(Subscription, subscriptionAnswer),
          ...errorResponses(401, 403, 404, 429),
        },
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
        description:
          'Stops new callbacks for this subscription and answers it as it was; callbacks already queued are still delivered. A subscription you cannot see, or one already deleted, answers 404.',
        params: SubscriptionParams,
        response: {
          200: withExample(Subscription, subscriptionAnswer),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => removeSubscription(ctx, scopeOf(request), request.params.subscriptionId),
  );
};
