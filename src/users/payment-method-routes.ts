import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/access.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import type { UsersDeps } from './deps.ts';
import {
  activePaymentMethodAnswer,
  createPaymentMethodRequest,
  disabledPaymentMethodAnswer,
  paymentMethodAnswer,
  paymentMethodListAnswer,
} from './examples.ts';
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
export const paymentMethodRoutes: FastifyPluginAsync<{ ctx: UsersDeps }> = async (app, { ctx }) => {
  app.post<{ Body: CreatePaymentMethodBody }>(
    '/v2/paymentMethods',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Attach a US bank account (LOCAL_TRANSFER); PENDING until verified',
        description:
          'Masquerading as the user (`masqueradeAs=user:US_…`). Only LOCAL_TRANSFER accounts in the US holding USD; routing and account numbers are checked, and the account number is stored sealed: answers show its last 4 digits only. Starts PENDING; the bank verification makes it ACTIVE or REJECTED. A CLOSED user answers 403.',
        body: withExample(CreatePaymentMethodBody, createPaymentMethodRequest),
        response: {
          200: withExample(PaymentMethod, paymentMethodAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429),
        },
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
        description:
          'Masquerading as the user. The user’s bank accounts, oldest first, paged with `offset` and `limit` (at most 100); deleted (DISABLED) ones are left out.',
        querystring: ListQuery,
        response: {
          200: withExample(PaymentMethodList, paymentMethodListAnswer),
          ...errorResponses(400, 401, 403, 429),
        },
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
        description:
          'Masquerading as the user who owns it. Another user’s method, a deleted one or an unknown id answers 404 `NotFoundException`.',
        params: PaymentMethodParams,
        response: {
          200: withExample(PaymentMethod, activePaymentMethodAnswer),
          ...errorResponses(401, 403, 404, 429),
        },
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
        description:
          'Masquerading as the user who owns it. The method becomes DISABLED (kept for the record, never usable again) and is answered as it now is; deleting it twice answers 404.',
        params: PaymentMethodParams,
        response: {
          200: withExample(PaymentMethod, disabledPaymentMethodAnswer),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => deletePaymentMethod(ctx, scopeOf(request), request.params.paymentMethodId),
  );
};
