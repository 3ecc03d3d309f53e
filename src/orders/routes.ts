import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/index.ts';
import { hasIdempotencyKey, runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import {
  partnerQuoteRequest,
  quoteAnswer,
  reservationAnswer,
  reserveAnswer,
  reserveRequest,
} from './examples.ts';
import {
  PartnerQuoteBody,
  QuoteSchema,
  ReservationParams,
  ReservationView,
  ReserveAnswer,
  ReserveBody,
} from './schemas.ts';
import { getReservation, type OrdersDeps, partnerQuote, reserve, storeReservation } from './service.ts';

const tags = ['Orders'];

export const ordersRoutes: FastifyPluginAsync<{ ctx: OrdersDeps }> = async (app, { ctx }) => {
  app.post<{ Body: ReserveBody }>(
    '/v3/orders/reserve',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Reserve a wallet order; with sourceAmount or destAmount the quote is locked for 15 minutes',
        description:
          'A partner key (a sub-account through masqueradeAs). With sourceAmount or destAmount (one, not both) plus amountIncludeFees, paymentMethod, sourceCurrency, destCurrency, dest, referrerAccountId and country, the price is quoted now and held until `expiresAt`; with `amount` alone it is priced at checkout. Send the buyer to `url`, or pass `reservation` to POST /v3/debitcard/process/partner; a reservation is used once. Notable errors: 400 `validation.unsupportedCountry`, `validation.invalidReferrerId` (referrerAccountId must be your own account), `validation.invalidAddress` (dest not on the chain of destCurrency); 503 `rates.stale` (transient) while no fresh price exists.',
        body: withExample(ReserveBody, reserveRequest),
        response: {
          200: withExample(ReserveAnswer, reserveAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      // Without an Idempotency-Key the reservation is an autocommit INSERT grouped with concurrent
      // requests' (no transaction around it); with one, its answer is stored in the reservation's
      // transaction.
      const outcome = await reserve(ctx, scope, request.body, (prepared) =>
        !hasIdempotencyKey(request)
          ? storeReservation(ctx, undefined, scope, prepared)
          : runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
              storeReservation(ctx, tx, scope, prepared),
            ),
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
        summary: 'Read a reservation with its locked quote (docs/contract.md, Reservations and quotes)',
        description:
          'The account that made the reservation. Everything the reservation was made with, and for a rate-locked one its quote; still readable after it was used or expired. Another partner’s reservation answers 404 like an unknown one.',
        params: ReservationParams,
        response: {
          200: withExample(ReservationView, reservationAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
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
        description:
          'A partner key. Prices a card purchase as a reservation would, fees included (`sourceAmount` is the total charged), without storing or locking anything: the next quote may differ. Pairs without a price answer 400 `validation.unsupportedCurrency`; 503 `rates.stale` (transient) while no fresh price exists.',
        body: withExample(PartnerQuoteBody, partnerQuoteRequest),
        response: { 200: withExample(QuoteSchema, quoteAnswer), ...errorResponses(400, 401, 403, 429, 503) },
      },
    },
    async (request) => partnerQuote(ctx, scopeOf(request), request.body),
  );
};
