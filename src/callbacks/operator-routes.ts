import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { operatorAct } from '../operator/index.ts';
import type { AppContext } from '../platform/context.ts';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import type { DeliveryStatus } from './deliveries-store.ts';
import { deliveryDetailAnswer, deliveryListAnswer, resentDeliveryAnswer } from './examples.ts';
import { getCallbackDelivery, listCallbackDeliveries, resendCallback } from './operator-service.ts';
import { Delivery, DeliveryDetail, DeliveryList, DeliveryListQuery, DeliveryParams } from './schemas.ts';

const tags = ['Operator'];

/** Callback deliveries for the operator (docs/contract.md, Operator API and decision 12). */
export const callbackOperatorRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get<{ Querystring: { status?: DeliveryStatus; offset?: number; limit?: number } }>(
    '/operator/v1/callbacks',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Callback deliveries, newest first, optionally by status',
        description:
          'Operator token only. Every callback (data subscriptions and wallet-order webhooks) of every partner, newest first, filtered by `status` (PENDING, DELIVERED, FAILED) and paged with `offset` and `limit` (at most 100).',
        querystring: DeliveryListQuery,
        response: { 200: withExample(DeliveryList, deliveryListAnswer), ...errorResponses(400, 401) },
      },
    },
    async (request) =>
      listCallbackDeliveries(
        ctx,
        request.query.status,
        request.query.offset ?? 0,
        request.query.limit ?? 100,
      ),
  );

  app.get<{ Params: { deliveryId: string } }>(
    '/operator/v1/callbacks/:deliveryId',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'One callback delivery with every attempt',
        description:
          'Operator token only. One delivery with each attempt’s start, HTTP status, latency and error, to tell a receiver’s fault from ours. Unknown ids answer 404.',
        params: DeliveryParams,
        response: { 200: withExample(DeliveryDetail, deliveryDetailAnswer), ...errorResponses(401, 404) },
      },
    },
    async (request) => getCallbackDelivery(ctx, request.params.deliveryId),
  );

  app.post<{ Params: { deliveryId: string } }>(
    '/operator/v1/callbacks/:deliveryId/resend',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Queue a delivered or failed callback again',
        params: DeliveryParams,
        // Nothing to send: an empty object, or no body at all.
        description:
          'Operator token only. Queues a DELIVERED or FAILED callback again with the configured retries; the stored body is sent with a fresh signature. A delivery still PENDING answers 400 `callbacks.deliveryPending`. Audited.',
        body: withExample(Type.Object({}, { additionalProperties: false }), {}),
        response: { 200: withExample(Delivery, resentDeliveryAnswer), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const act = operatorAct(request);
      const answer = await resendCallback(ctx, act, request.params.deliveryId);
      request.operatorAudited = true;
      return answer;
    },
  );
};
