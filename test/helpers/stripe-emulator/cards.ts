// An emulator of Stripe's API for tests: not Stripe. Stripe's documented test cards (docs.stripe.com/testing).

/** What a documented test card does when a PaymentIntent confirms with it. */
export type CardBehaviour =
  | { kind: 'succeed' }
  | { kind: 'three_d_secure' }
  | { kind: 'decline'; code: string; declineCode?: string; message: string }
  | { kind: 'zip_check_fails' }
  | { kind: 'dispute'; reason: 'fraudulent' };

export interface TestCard {
  number: string;
  brand: 'visa' | 'mastercard';
  funding: 'credit' | 'debit' | 'prepaid';
  /** Stripe's ready-made PaymentMethod id for this card, where it has one. */
  paymentMethodId?: string;
  behaviour: CardBehaviour;
}

const DECLINED = 'Your card was declined.';

export const TEST_CARDS: readonly TestCard[] = [
  {
    number: '4242424242424242',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_visa',
    behaviour: { kind: 'succeed' },
  },
  {
    number: '4000056655665556',
    brand: 'visa',
    funding: 'debit',
    paymentMethodId: 'pm_card_visa_debit',
    behaviour: { kind: 'succeed' },
  },
  {
    number: '5555555555554444',
    brand: 'mastercard',
    funding: 'credit',
    paymentMethodId: 'pm_card_mastercard',
    behaviour: { kind: 'succeed' },
  },
  {
    number: '5200828282828210',
    brand: 'mastercard',
    funding: 'debit',
    paymentMethodId: 'pm_card_mastercard_debit',
    behaviour: { kind: 'succeed' },
  },
  {
    number: '5105105105105100',
    brand: 'mastercard',
    funding: 'prepaid',
    paymentMethodId: 'pm_card_mastercard_prepaid',
    behaviour: { kind: 'succeed' },
  },
  {
    number: '4000000000003220',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_threeDSecure2Required',
    behaviour: { kind: 'three_d_secure' },
  },
  {
    number: '4000000000000002',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_visa_chargeDeclined',
    behaviour: { kind: 'decline', code: 'card_declined', declineCode: 'generic_decline', message: DECLINED },
  },
  {
    number: '4000000000009995',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_visa_chargeDeclinedInsufficientFunds',
    behaviour: {
      kind: 'decline',
      code: 'card_declined',
      declineCode: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    },
  },
  {
    number: '4000000000009987',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_visa_chargeDeclinedLostCard',
    behaviour: { kind: 'decline', code: 'card_declined', declineCode: 'lost_card', message: DECLINED },
  },
  {
    number: '4000000000000069',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_chargeDeclinedExpiredCard',
    behaviour: { kind: 'decline', code: 'expired_card', message: 'Your card has expired.' },
  },
  {
    number: '4000000000000127',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_chargeDeclinedIncorrectCvc',
    behaviour: { kind: 'decline', code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  },
  {
    number: '4000000000000119',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_chargeDeclinedProcessingError',
    behaviour: {
      kind: 'decline',
      code: 'processing_error',
      message: 'An error occurred while processing your card. Try again in a little bit.',
    },
  },
  // The postal code check fails; the account declines on it (Stripe's Radar rule for a failed ZIP check).
  {
    number: '4000000000000036',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_avsZipFail',
    behaviour: { kind: 'zip_check_fails' },
  },
  {
    number: '4000000000000259',
    brand: 'visa',
    funding: 'credit',
    paymentMethodId: 'pm_card_createDispute',
    behaviour: { kind: 'dispute', reason: 'fraudulent' },
  },
];

export function cardByNumber(number: string): TestCard | undefined {
  return TEST_CARDS.find((c) => c.number === number);
}

export function cardByPaymentMethodId(id: string): TestCard | undefined {
  return TEST_CARDS.find((c) => c.paymentMethodId === id);
}

/**
 * The test cards end-to-end tests should type into Rampart. Rampart's own BIN table
 * (src/cards/bins.ts) refuses credit and prepaid cards before any processor sees them: 424242
 * (4242424242424242) is a credit BIN there and is refused, while the `400000…` and `400005…`
 * numbers read as Visa debit and `520082…` as Mastercard debit, so these reach Stripe.
 */
export const STRIPE_TEST_CARDS = {
  /** Visa debit: authorizes, captures. */
  success: '4000056655665556',
  /** Mastercard debit: authorizes, captures. */
  successMastercard: '5200828282828210',
  /** 3-D Secure required: CHALLENGE, then approve or decline on the emulator's page. */
  threeDSecure: '4000000000003220',
  /** card_declined / generic_decline: DECLINED, DO_NOT_HONOR. */
  declined: '4000000000000002',
  /** card_declined / insufficient_funds: DECLINED, INSUFFICIENT_FUNDS. */
  insufficientFunds: '4000000000009995',
  /** incorrect_zip: DECLINED, AVS_ZIP. */
  incorrectZip: '4000000000000036',
  /** Authorizes and captures, then the buyer's bank disputes it (charge.dispute.created). */
  dispute: '4000000000000259',
  /** Refused by Rampart's BIN table as a credit card before Stripe is asked. */
  creditRefusedByRampart: '4242424242424242',
} as const;
