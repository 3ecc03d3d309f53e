import { orderErrors } from '../orders/errors.ts';
import { ApiError, invalidValue } from '../platform/errors.ts';

/**
 * The checkout's refusals. The page (GET /purchase) shows them as HTML for people; the page's
 * JSON endpoints answer them with the envelope.
 */
export const checkoutErrors = {
  /** Unknown, or not the link's account: the same answer, so ids of others cannot be probed. */
  unknownReservation: () =>
    new ApiError('NotFoundException', 'checkout.unknownReservation', 'This checkout link is not valid.', {
      problematicField: 'reservation',
    }),
  expired: () =>
    new ApiError(
      'ValidationException',
      'checkout.reservationExpired',
      'This checkout link has expired. Please return to the site you came from and start again.',
      { status: 410, problematicField: 'reservation' },
    ),
  used: () =>
    new ApiError(
      'ValidationException',
      'checkout.reservationUsed',
      'This checkout link has already been used. Please return to the site you came from.',
      { status: 410, problematicField: 'reservation' },
    ),
  alteredRedirect: (field: string) =>
    invalidValue(
      field,
      'This checkout link was altered: its return address does not match the one the merchant set.',
      'checkout.redirectMismatch',
    ),
  /** A page JSON call about a reservation that can no longer be used: Wyre's code. */
  illegalReservation: orderErrors.illegalReservation,
  unknownOrder: () =>
    new ApiError('NotFoundException', 'checkout.unknownOrder', 'Order not found.', {
      problematicField: 'orderId',
    }),
  fieldLocked: (field: string) =>
    invalidValue(
      field,
      `Field ${field} is set by the merchant and cannot be changed.`,
      'validation.fieldLocked',
    ),
};
