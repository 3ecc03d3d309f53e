import type { FastifyPluginAsync } from 'fastify';
import { scopeOf } from '../identity/index.ts';
import { ReservationParams } from '../orders/index.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import type { WalletOrdersDeps } from '../wallet-orders/index.ts';
import { declinedCardAttempts } from './attempts.ts';
import { DeclinedCardAttempts } from './schemas.ts';

/**
 * What the partner reads of its hosted checkouts. The buyer is told only that a card was
 * declined; the partner, answering for its buyers, sees why (docs/contract.md, Hosted pages).
 */
export const checkoutPartnerRoutes: FastifyPluginAsync<{ ctx: WalletOrdersDeps }> = async (app, { ctx }) => {
  app.get<{ Params: { reservationId: string } }>(
    '/v3/orders/reservation/:reservationId/cardAttempts',
    {
      schema: {
        tags: ['Hosted checkout'],
        security: PARTNER_SECURITY,
        summary: 'The cards the hosted checkout declined on a reservation, with the processor’s reasons',
        description:
          'The account that made the reservation. Each card the processor refused on the reservation’s hosted checkout, oldest first, with the errorCode and message the partner API would have answered (the buyer saw only a generic decline). Kept 30 days. Another partner’s reservation answers 404 like an unknown one.',
        params: ReservationParams,
        response: {
          200: withExample(DeclinedCardAttempts, {
            data: [
              {
                createdAt: 1795296977188,
                errorCode: 'validation.avs.zipcode',
                message: 'The postal code does not match the card’s billing address.',
              },
            ],
          }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => declinedCardAttempts(ctx, scopeOf(request), request.params.reservationId),
  );
};
