import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/index.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import type { UsersDeps } from './deps.ts';
import {
  activePaymentMethodAnswer,
  attachBlockchainsRequest,
  attachedPaymentMethodAnswer,
  createPaymentMethodRequest,
  disabledPaymentMethodAnswer,
  paymentMethodAnswer,
  paymentMethodListAnswer,
} from './examples.ts';
import {
  attachBlockchains,
  createPaymentMethod,
  deletePaymentMethod,
  getPaymentMethod,
  listOwnPaymentMethods,
} from './payment-methods-service.ts';
import {
  AttachBlockchainsBody,
  CreatePaymentMethodBody,
  ListQuery,
  PaymentMethod,
  PaymentMethodList,
  PaymentMethodParams,
} from './schemas.ts';

const tags = ['Payment methods'];

/**
 * Bank accounts of the acting account, or of a user through masqueradeAs=user:<id>
 * (docs/contract.md "Payment methods and bank transfers").
 */
export const paymentMethodRoutes: FastifyPluginAsync<{ ctx: UsersDeps }> = async (app, { ctx }) => {
  app.post<{ Body: CreatePaymentMethodBody }>(
    '/v2/paymentMethods',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Add a bank account (ACH or wire beneficiary); PENDING until verified',
        description:
          'Owned by the acting account, or by the user masqueraded as (`masqueradeAs=user:US_…`). LOCAL_TRANSFER: a US USD account, sent as a Plaid token (`publicToken` "<token>|<accountId>", `plaidPublicToken` or `plaidProcessorToken`, read through the bank-account verifier; 503 where none is configured) or as `accountNumber` and `routingNumber` (ABA check digit). INTERNATIONAL_TRANSFER (`paymentType` LOCAL_BANK_WIRE): a wire beneficiary with `accountNumber` and `routingNumber` (the bank code), or `clabe` in Mexico. The account number is stored sealed: answers show its last 4 digits only. Starts PENDING; the bank verification makes it ACTIVE or REJECTED. `attachBlockchains` attaches deposit addresses as /attach does. A CLOSED user answers 403.',
        body: withExample(CreatePaymentMethodBody, createPaymentMethodRequest),
        response: {
          200: withExample(PaymentMethod, paymentMethodAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429, 503),
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
        summary: "The acting account's or user's payment methods",
        description:
          'The acting account’s bank accounts, or the user’s when masquerading as one, oldest first, paged with `offset` and `limit` (at most 100); deleted (DISABLED) ones are left out.',
        querystring: ListQuery,
        response: {
          200: withExample(PaymentMethodList, paymentMethodListAnswer),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) =>
      listOwnPaymentMethods(ctx, scopeOf(request), request.query.offset ?? 0, request.query.limit ?? 100),
  );

  app.get<{ Params: { paymentMethodId: string } }>(
    '/v2/paymentMethod/:paymentMethodId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'One payment method',
        description:
          'As the account or user (masqueradeAs) that owns it. Someone else’s method, a deleted one or an unknown id answers 404 `NotFoundException`.',
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
          'As the account or user that owns it. The method becomes DISABLED (kept for the record, never usable again) and is answered as it now is; deleting it twice answers 404.',
        params: PaymentMethodParams,
        response: {
          200: withExample(PaymentMethod, disabledPaymentMethodAnswer),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => deletePaymentMethod(ctx, scopeOf(request), request.params.paymentMethodId),
  );

  app.post<{ Params: { paymentMethodId: string }; Body: AttachBlockchainsBody }>(
    '/v2/paymentMethod/:paymentMethodId/attach',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Attach deposit addresses to a payment method',
        description:
          'As the account or user that owns it. `blockchain`: "BTC", "ALL" or a comma-separated list (BTC, ETH, MATIC, AVAX, AVAXC). Answers the method with `blockchains` keyed by currency; attaching again keeps the addresses given before. Where no custody backend is configured the addresses are refused (400).',
        params: PaymentMethodParams,
        body: withExample(AttachBlockchainsBody, attachBlockchainsRequest),
        response: {
          200: withExample(PaymentMethod, attachedPaymentMethodAnswer),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        attachBlockchains(ctx, tx, scope, request.params.paymentMethodId, request.body),
      );
      return sendIdempotent(reply, outcome);
    },
  );
};
