import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/pool.ts';
import type { Money } from '../platform/money.ts';
import type { CardInput, CheckedCard } from './card-input.ts';

/**
 * The card processor port. Every call is idempotent by order id: repeating an authorise returns
 * the first answer, repeating a capture, void or refund changes nothing more.
 *
 * `q` is the caller's transaction: the sandbox processor keeps its records in it (so a rolled
 * back order leaves no authorization behind); a remote processor ignores it.
 */
export interface CardProcessor {
  /** The issuer's 3-D Secure page is served by Rampart itself (the sandbox's simulated issuer). */
  readonly simulatesIssuer: boolean;
  /**
   * Authorises each call's amount: one answer per call, in order, each settling on its own (a
   * slow issuer holds up only its own call). Calls made together are the orders of one group
   * (wallet-orders/order-groups.ts); the sandbox writes their records in one statement. A call's
   * `signal` aborts it once the caller stopped waiting: it must not touch `q` after that.
   */
  authorize(q: Queryable, calls: readonly AuthorizeCall[]): Promise<AuthorizeResult>[];
  /** Captures the orders' holds; the worker captures the orders it processes together at once. */
  capture(q: Queryable, orderIds: readonly string[]): Promise<void>;
  void(q: Queryable, orderId: string): Promise<void>;
  refund(q: Queryable, orderId: string): Promise<void>;
  /**
   * Apple Pay: the card a payment token stands for, which `authorize` then holds like any card.
   * Absent when this processor takes no Apple Pay: such orders are refused as not configured.
   * Throws the refusals the token already shows (a credit or prepaid card).
   */
  applePayCard?(token: ApplePayToken, nowMs: number): CardInput;
}

/** The `token` of an Apple Pay payment (PKPaymentToken) as Wyre's clients pass it on. */
export interface ApplePayToken {
  paymentData: unknown;
  paymentMethod: {
    displayName?: string | undefined;
    network?: string | undefined;
    type?: string | undefined;
  };
  transactionIdentifier?: string | undefined;
}

export interface AuthorizeCall {
  request: AuthorizeRequest;
  signal: AbortSignal;
}

export interface AuthorizeRequest {
  orderId: string;
  card: CheckedCard;
  fingerprint: string;
  amount: Money;
  currency: string;
  billing: { street1: string; postalCode: string; country: string };
  nowMs: number;
}

/** What the issuer wants before the hold can be captured. */
export type AuthorizationStep = 'NONE' | 'CODES' | '3DS';

/** Why the processor refused a card. */
export type DeclineReason =
  | 'DO_NOT_HONOR'
  | 'INSUFFICIENT_FUNDS'
  | 'AVS_ZIP'
  | 'CREDIT'
  | 'PREPAID'
  | 'BRAND';

export type AuthorizeResult =
  | { outcome: 'APPROVED'; step: AuthorizationStep }
  | { outcome: 'DECLINED'; reason: DeclineReason };

/** What the card functions are given: the processor the composition root chose. */
export interface CardsDeps extends AppContext {
  cardProcessor: CardProcessor;
}
