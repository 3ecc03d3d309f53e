import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/access.ts';
import type { AppContext } from '../platform/context.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY } from '../platform/http/openapi.ts';
import {
  PartnerQuoteBody,
  QuoteSchema,
  ReservationParams,
  ReservationView,
  ReserveAnswer,
  ReserveBody,
} from './schemas.ts';
import { getReservation, partnerQuote, prepareReservation, storeReservation } from './service.ts';

const tags = ['Orders'];

export const ordersRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: ReserveBody }>(
    '/v3/orders/reserve',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Reserve a wallet order; with sourceAmount or destAmount the quote is locked for 15 minutes',
        body: ReserveBody,
        response: { 200: ReserveAnswer, ...errorResponses(400, 401, 403, 409, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const prepared = await prepareReservation(ctx, scope, request.body);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        storeReservation(ctx, tx, scope, prepared),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Params: { reservationId: string } }>(
    '/v3/orders/reservation/:reservationId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Read a reservation with its locked quote (spec §2.3)',
        params: ReservationParams,
        response: { 200: ReservationView, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => getReservation(ctx, scopeOf(request), request.params.reservationId),
  );

  app.post<{ Body: PartnerQuoteBody }>(
    '/v3/orders/quote/partner',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Quote a wallet order without locking it',
        body: PartnerQuoteBody,
        response: { 200: QuoteSchema, ...errorResponses(400, 401, 403, 429, 503) },
      },
    },
    async (request) => partnerQuote(ctx, scopeOf(request), request.body),
  );
};
