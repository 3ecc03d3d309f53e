import { ApiError, invalidValue, notFound } from '../platform/errors.ts';

export const walletOrderErrors = {
  /** docs/contract.md, decision 3: a rate-locked reservation's order charges exactly the quote's sourceAmount. */
  amountMismatch: (expected: string, currency: string) =>
    invalidValue(
      'amount',
      `amount must equal the reservation's locked quote: ${expected} ${currency} (fees included).`,
      'validation.amountMismatch',
    ),
  reservationMismatch: (field: string) =>
    invalidValue(
      field,
      `${field} differs from the value the reservation fixed.`,
      'validation.reservationMismatch',
    ),
  notFound: () => notFound('Wallet order'),
  noAuthorization: () =>
    new ApiError(
      'ValidationException',
      'validation.orderAuthorizationDetailsNotAvailable',
      'This order has no authorization step waiting.',
      { problematicField: 'walletOrderId' },
    ),
  codeMismatch: (attemptsLeft: number) =>
    invalidValue(
      'sms',
      `The code does not match; ${attemptsLeft} attempt${attemptsLeft === 1 ? '' : 's'} left.`,
      'validation.authorizationCodeMismatch',
    ),
  maxAttempts: () =>
    invalidValue(
      'sms',
      'Too many wrong codes: the order has failed and the card hold was released.',
      'validation.authorizationMaxAttempts',
    ),
  codeExpired: () =>
    invalidValue(
      'sms',
      'The codes have expired: the order has failed and the card hold was released.',
      'validation.authorizationCodeExpired',
    ),
  codeRequired: (field: 'sms' | 'card2fa') =>
    new ApiError('FieldRequiredException', 'validation.fieldRequired', `Field ${field} is required.`, {
      problematicField: field,
    }),
  codeNotAsked: (field: 'card2fa') =>
    invalidValue(field, `This order asks for no ${field} code: submit type SMS.`, 'validation.codeNotAsked'),
  /** docs/contract.md, decision 124: refused before anything is written, not left to expire. */
  codesUndeliverable: () =>
    new ApiError(
      'ServiceUnavailableException',
      'walletOrder.codesUndeliverable',
      'This card needs an SMS code and no SMS provider is configured to send it: the order was not placed.',
      { transient: false },
    ),
  wrongReservation: () => invalidValue('reservation', 'reservation is not the reservation of this order.'),
  ownerFormat: () => invalidValue('owner', 'owner must be user:US_… naming one of your users.'),
  /** Contract decision 113: the crypto is gone; only the operator refunds a delivered order. */
  refundAfterDelivery: () =>
    new ApiError(
      'ValidationException',
      'refund.afterDelivery',
      'The order’s crypto was delivered: it can no longer be refunded by the partner; contact the operator.',
      { problematicField: 'orderId' },
    ),
  refundDeliveryUnderway: () =>
    new ApiError(
      'ValidationException',
      'refund.deliveryUnderway',
      'The order’s crypto is already on its way and cannot be stopped; it cannot be refunded now.',
      { problematicField: 'orderId' },
    ),
  refundNotRefundable: (why: string) =>
    new ApiError('ValidationException', 'refund.notRefundable', why, { problematicField: 'orderId' }),
  refundExceedsCaptured: (left: string, currency: string) =>
    invalidValue(
      'amount',
      `amount exceeds what is left of the charge to refund: ${left} ${currency}.`,
      'refund.exceedsCaptured',
    ),
  refundPartialBeforeDelivery: () =>
    invalidValue(
      'amount',
      'Before delivery an order is refunded in full: leave amount out or give the whole charge.',
      'refund.partialBeforeDelivery',
    ),
  disputeNotPossible: (why: string) =>
    new ApiError('ValidationException', 'dispute.notPossible', why, { problematicField: 'action' }),
};

/** Failure reasons stored on a FAILED order and sent in its webhook (docs/contract.md, Card orders). */
export const FAILURES = {
  codesMaxAttempts: {
    code: 'validation.authorizationMaxAttempts',
    message: 'Too many wrong authorization codes.',
  },
  codesExpired: { code: 'validation.authorizationCodeExpired', message: 'The authorization codes expired.' },
  threeDsDeclined: {
    code: 'validation.authorization3dsDeclined',
    message: '3-D Secure authentication was declined.',
  },
  threeDsExpired: {
    code: 'validation.authorizationCodeExpired',
    message: '3-D Secure was not completed in time.',
  },
  refunded: {
    code: 'order.refunded',
    message: 'The order was refunded before its crypto was delivered.',
  },
} as const;
export type Failure = { code: string; message: string };

/** A chain delivery that failed, with the chain's reason and what became of the card. */
export function deliveryFailure(reason: string, captured: boolean): Failure {
  const card = captured ? 'the card was refunded' : 'the card was not charged';
  return {
    code: 'transfer.deliveryFailed',
    message: `The crypto could not be delivered (${reason.slice(0, 200)}); ${card}.`,
  };
}
