import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { operatorAction } from '../operator/auth.ts';
import type { AppContext } from '../platform/context.ts';
import { errorResponses, OPERATOR_SECURITY } from '../platform/http/openapi.ts';
import type { DeliveryStatus } from './deliveries-store.ts';
import { getCallbackDelivery, listCallbackDeliveries, resendCallback } from './operator-service.ts';
import { Delivery, DeliveryDetail, DeliveryList, DeliveryListQuery, DeliveryParams } from './schemas.ts';

const tags = ['Operator'];

/** Callback deliveries for the operator (API.md operator table, decision 12). */
export const callbackOperatorRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get<{ Querystring: { status?: DeliveryStatus; offset?: number; limit?: number } }>(
    '/operator/v1/callbacks',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Callback deliveries, newest first, optionally by status',
        querystring: DeliveryListQuery,
        response: { 200: DeliveryList, ...errorResponses(400, 401) },
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
        params: DeliveryParams,
        response: { 200: DeliveryDetail, ...errorResponses(401, 404) },
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
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Delivery, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const act = { action: operatorAction(request), remoteIp: request.ip };
      const answer = await resendCallback(ctx, act, request.params.deliveryId);
      request.operatorAudited = true;
      return answer;
    },
  );
};
