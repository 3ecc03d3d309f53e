import type { BillingAddress } from '../limits/billing-address.ts';
import type { Money } from '../platform/money.ts';

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
  /** Ask for 3-D Secure whatever the card needs (facts §1.9). */
  trigger3ds?: boolean;
  walletType?: 'DEBIT_CARD' | 'APPLE_PAY';
  /** `user:US_…` (facts §1.8): the partner's user buying; counts its spend, and its DEBIT_CARD_L2 scope raises the limits. */
  owner?: string;
}
