import type { CheckedCard } from '../cards/index.ts';
import type { Scope } from '../identity/index.ts';
import type { BillingAddress, LimitTier } from '../limits/index.ts';
import type { Money } from '../platform/money.ts';
import type { Quote } from '../pricing/index.ts';

export type { BillingAddress };

/** A create-order request after the route (or the hosted page) has validated and parsed it. */
export interface WalletOrderRequest {
  reservationId: string;
  /** The total charged; must equal the locked quote's sourceAmount when rate-locked. */
  amount: Money;
  sourceCurrency: string;
  destCurrency: string;
  dest: string;
  referrerAccountId: string;
  givenName: string;
  familyName: string;
  email: string;
  phone: string;
  referenceId?: string;
  address: BillingAddress;
  ipAddress: string;
  debitCard: { number: string; year: string; month: string; cvv: string };
  /** Ask for 3-D Secure whatever the card needs (docs/contract.md, Card orders). */
  trigger3ds?: boolean;
  walletType?: 'DEBIT_CARD' | 'APPLE_PAY';
  /** `user:US_…` (docs/contract.md, Reservations and quotes): the partner's user buying; counts its spend, and its DEBIT_CARD_L2 scope raises the limits. */
  owner?: string;
}

/** Everything checked before the order's transaction opens (no pooled connection held). */
export interface PreparedOrder {
  scope: Scope;
  request: WalletOrderRequest;
  card: CheckedCard;
  address: BillingAddress;
  tier: LimitTier;
  ownerUserId: string | undefined;
  /** The card's keyed fingerprint (never the number): a spend key, and stored with the order. */
  fingerprint: string;
  /** What the order's spend counts under (limits): billing address, card, owner user. */
  spendKeys: string[];
  /**
   * Made once, before any attempt: the card processor's idempotency key, so an order run again
   * (after its group rolled back, or once quoted) is the same order to the processor.
   */
  orderId: string;
  /**
   * For a reservation that locked no rate: `amount` quoted at current prices, made outside any
   * transaction once a first attempt found the reservation unlocked (QuoteNeeded).
   */
  unlockedQuote?: Quote;
  /** A remote processor's token for the card (CardProcessor.prepare); the card number is never stored. */
  processorToken?: string;
}
