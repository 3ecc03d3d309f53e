/**
 * The sandbox processor's documented test cards (docs/sandbox-cards.md), after Stripe's: any
 * future expiry, any three-digit CVV. A Luhn-valid Visa or Mastercard debit number not listed
 * here is approved without extra steps.
 */
export type TestCardBehaviour =
  | 'APPROVE'
  | 'DECLINE_DO_NOT_HONOR'
  | 'INSUFFICIENT_FUNDS'
  | 'NEEDS_CODES'
  | 'NEEDS_3DS'
  | 'AVS_ZIP_MISMATCH'
  | 'SLOW';

export const TEST_CARDS: Record<string, { behaviour: TestCardBehaviour; description: string }> = {
  '4111111111111111': { behaviour: 'APPROVE', description: 'Visa debit: approved (Wyre’s sample card)' },
  '4000056655665556': { behaviour: 'APPROVE', description: 'Visa debit: approved' },
  '5200828282828210': { behaviour: 'APPROVE', description: 'Mastercard debit: approved' },
  '4000000000000002': { behaviour: 'DECLINE_DO_NOT_HONOR', description: 'declined, 05 / Do not honor' },
  '4000000000009995': { behaviour: 'INSUFFICIENT_FUNDS', description: 'declined, 51 / Insufficient funds' },
  '4000000000001018': { behaviour: 'NEEDS_CODES', description: 'approved after SMS and CARD2FA codes' },
  '4000000000003220': { behaviour: 'NEEDS_3DS', description: 'approved after 3-D Secure' },
  '4000000000000036': { behaviour: 'AVS_ZIP_MISMATCH', description: 'refused: postal code does not match' },
  '4000000000005050': { behaviour: 'SLOW', description: 'approved, but the processor takes 2 s to answer' },
};

/** How long the SLOW card makes the sandbox processor wait before answering. */
export const SLOW_CARD_DELAY_MS = 2000;

export function testCardBehaviour(pan: string): TestCardBehaviour {
  return Object.hasOwn(TEST_CARDS, pan) ? TEST_CARDS[pan]!.behaviour : 'APPROVE';
}
