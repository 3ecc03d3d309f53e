import { ApiError, invalidValue, unauthenticated } from '../platform/errors.ts';
import type { DeclineReason } from './processor.ts';

/**
 * The card processor refused the card, as opposed to our own checks of what was typed: the
 * partner API answers the refusal as it is (Wyre's errorCode, the processor's code and reason);
 * the hosted checkout counts it against its caps and tells the buyer no more than that the card
 * was declined (src/checkout/attempts.ts).
 */
export class CardDeclinedError extends ApiError {
  constructor(
    readonly reason: DeclineReason,
    refusal: ApiError,
  ) {
    super(refusal.type, refusal.errorCode, refusal.message, {
      status: refusal.status,
      transient: refusal.transient,
      ...(refusal.problematicField !== undefined ? { problematicField: refusal.problematicField } : {}),
    });
  }
}

/** Card failures, with Wyre's errorCodes (docs/contract.md, Errors) where Wyre has one. */
export const cardErrors = {
  invalidNumber: () =>
    invalidValue(
      'debitCard.number',
      'The card number is not valid: 13 to 19 digits with a correct check digit.',
      'validation.invalidDebitCardNumber',
    ),
  expirationYear: () =>
    invalidValue(
      'debitCard.year',
      'debitCard.year must be the four-digit expiry year, such as 2030.',
      'validation.cardExpirationYear',
    ),
  expirationMonth: () =>
    invalidValue(
      'debitCard.month',
      'debitCard.month must be the two-digit expiry month, 01 to 12.',
      'validation.cardExpirationMonth',
    ),
  expired: () => invalidValue('debitCard.year', 'The card has expired.', 'validation.cardExpirationYear'),
  cvv: () =>
    invalidValue('debitCard.cvv', 'debitCard.cvv must be the three-digit security code.', 'validation.cvv'),
  unsupportedBrand: () =>
    invalidValue(
      'debitCard.number',
      'Only Visa and Mastercard debit cards are accepted.',
      'validation.invalidDebitCardNumber',
    ),
  credit: () =>
    invalidValue(
      'debitCard.number',
      'Credit cards are not supported; use a debit card.',
      'validation.unsupportedCardType.credit',
    ),
  prepaid: () =>
    invalidValue(
      'debitCard.number',
      'Prepaid cards are not supported; use a debit card.',
      'validation.unsupportedCardType.prepaid',
    ),
  avsZip: () =>
    invalidValue(
      'address.postalCode',
      'The postal code does not match the card’s billing address.',
      'validation.avs.zipcode',
    ),
  declined: (processorCode: string, reason: string) =>
    new ApiError(
      'ValidationException',
      'validation.cardDeclined',
      `The card was declined: ${processorCode} / ${reason}.`,
      {
        problematicField: 'debitCard',
      },
    ),
  insufficientFunds: () =>
    new ApiError(
      'InsufficientFundsException',
      'validation.insufficientFunds',
      'The card was declined: 51 / Insufficient funds.',
      { problematicField: 'debitCard' },
    ),
  noProcessor: () =>
    new ApiError(
      'ServiceUnavailableException',
      'card.noProcessor',
      'Card payments are not available: no card processor is configured.',
      { transient: false },
    ),
  applePayNotConfigured: () =>
    new ApiError(
      'ServiceUnavailableException',
      'card.applePayNotConfigured',
      'Apple Pay is not available: no card processor that accepts Apple Pay tokens is configured.',
      { transient: false },
    ),
  processorTimeout: () =>
    new ApiError(
      'ServiceUnavailableException',
      'card.processorUnavailable',
      'The card processor did not answer in time; nothing was charged. Try again.',
      { transient: true },
    ),
  /** The reconciliation could not read the processor's books (docs/contract.md, decision 122). */
  booksUnavailable: () =>
    new ApiError(
      'ServiceUnavailableException',
      'card.processorUnavailable',
      'The card processor did not answer with its books; try again.',
      { transient: true },
    ),
  /** A processor event whose signature does not verify: nothing is changed (decision 107). */
  eventSignature: () =>
    unauthenticated('cardProcessor.invalidSignature', 'The event signature does not verify.'),
};
