import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/access.ts';
import type { AppContext } from '../platform/context.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY } from '../platform/http/openapi.ts';
import {
  createPaymentMethod,
  deletePaymentMethod,
  getPaymentMethod,
  listUserPaymentMethods,
} from './payment-methods-service.ts';
import {
  CreatePaymentMethodBody,
  ListQuery,
  PaymentMethod,
  PaymentMethodList,
  PaymentMethodParams,
} from './schemas.ts';

const tags = ['Payment methods'];

/** Bank accounts of a user (facts §1.4), always through masqueradeAs=user:<id>. */
export const paymentMethodRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: CreatePaymentMethodBody }>(
    '/v2/paymentMethods',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Attach a US bank account (LOCAL_TRANSFER); PENDING until verified',
        body: CreatePaymentMethodBody,
        response: { 200: PaymentMethod, ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        createPaymentMethod(ctx, tx, scope, request.body),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Querystring: { offset?: number; limit?: number } }>(
    '/v2/paymentMethods',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: "The user's payment methods",
        querystring: ListQuery,
        response: { 200: PaymentMethodList, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) =>
      listUserPaymentMethods(ctx, scopeOf(request), request.query.offset ?? 0, request.query.limit ?? 100),
  );

  app.get<{ Params: { paymentMethodId: string } }>(
    '/v2/paymentMethod/:paymentMethodId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'One payment method',
        params: PaymentMethodParams,
        response: { 200: PaymentMethod, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => getPaymentMethod(ctx, scopeOf(request), request.params.paymentMethodId),
  );

  app.delete<{ Params: { paymentMethodId: string } }>(
    '/v2/paymentMethod/:paymentMethodId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Disable a payment method',
        params: PaymentMethodParams,
        response: { 200: PaymentMethod, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => deletePaymentMethod(ctx, scopeOf(request), request.params.paymentMethodId),
  );
};
