import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/pool.ts';
import type { Money } from '../platform/money.ts';
import type { CardInput, CheckedCard } from './card-input.ts';
import type {
  BalanceTransaction,
  CardConnector,
  ConnectorBilling,
  Payout,
  ProcessorEvent,
  TimeRange,
} from './connector.ts';

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
   * How long an authorization can still be captured: the order's ledger hold lives as long, and
   * the worker captures an order still undelivered a margin before it ends (docs/contract.md,
   * decision 112).
   */
  readonly authorizationLifetimeMs: number;
  /**
   * Authorises each call's amount: one answer per call, in order, each settling on its own (a
   * slow issuer holds up only its own call). Calls made together are the orders of one group
   * (wallet-orders/order-groups.ts); the sandbox writes their records in one statement. A call's
   * `signal` aborts it once the caller stopped waiting: it must not touch `q` after that.
   */
  authorize(q: Queryable, calls: readonly AuthorizeCall[]): Promise<AuthorizeResult>[];
  /**
   * Captures the orders' holds once their crypto is delivered (or their authorization nears the
   * end of its lifetime); the worker captures the orders it settles together at once. The sandbox captures in `q`; a
   * remote processor records the capture to make in `q` and makes it after COMMIT (its job), so
   * a rolled-back transaction asks for nothing.
   */
  capture(q: Queryable, orderIds: readonly string[]): Promise<void>;
  /** Releases a hold never captured; as capture, recorded in `q` and made after COMMIT. */
  void(q: Queryable, orderId: string): Promise<void>;
  /**
   * Gives back `refund.amount` of a captured order (all of it or part), once per `refundId`.
   * Answers 'COMPLETE' when the processor confirmed the refund within the call (the sandbox);
   * otherwise the outcome arrives later as a `refund.updated` event (wallet-orders/refunds.ts).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a processor that confirms later is a plain async method answering nothing.
  refund(q: Queryable, orderId: string, refund: CardRefund): Promise<RefundConfirmation | void>;
  /**
   * The processor's own books for a period, for the card reconciliation
   * (wallet-orders/card-reconciliation.ts); absent where the processor keeps none to read.
   */
  books?(q: Queryable, range: TimeRange): Promise<ProcessorBooks>;
  /**
   * Sandbox only: opens, wins or loses a dispute on an order's charge as a card network would,
   * answering the event a remote processor would send (undefined: no captured charge to dispute).
   */
  simulateDispute?(q: Queryable, orderId: string, action: DisputeAction): Promise<DisputeEvent | undefined>;
  /**
   * Apple Pay: the card a payment token stands for, which `authorize` then holds like any card.
   * Absent when this processor takes no Apple Pay: such orders are refused as not configured.
   * Throws the refusals the token already shows (a credit or prepaid card).
   */
  applePayCard?(token: ApplePayToken, nowMs: number): CardInput;
  /**
   * A remote processor's first step, before the order's transaction opens: exchanges the card
   * for the processor's token (no money moves), which the order's authorize then names, so the
   * card number is never stored (docs/contract.md decision 100). Throws what refuses the card.
   */
  prepare?(card: CheckedCard, billing: ConnectorBilling): Promise<string>;
  /**
   * Set for a processor reached over the network: its authorize only records the payment in the
   * order's transaction (answering PENDING), and the order's service asks this connector after
   * COMMIT (wallet-orders/card-payments.ts).
   */
  readonly remote?: CardConnector;
}

/**
 * Seven days: how long Stripe lets an online card payment's authorization be captured, and what
 * the sandbox gives its own.
 */
export const CARD_AUTHORIZATION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

export interface CardRefund {
  /**
   * Rampart's id of this refund, also the processor's idempotency key: `paymentKey(orderId,
   * 'refund', n)` (cards/connector.ts), so several partial refunds of one order each have their own.
   */
  refundId: string;
  amount: Money;
}

/** A refund the processor confirmed within the call. */
export type RefundConfirmation = 'COMPLETE';

/** What the processor's books say of a period: every movement of money, and its payouts. */
export interface ProcessorBooks {
  balanceTransactions: BalanceTransaction[];
  payouts: Payout[];
}

export type DisputeAction = 'OPEN' | 'WIN' | 'LOSE';
export type DisputeEvent = Extract<
  ProcessorEvent,
  { kind: 'dispute.opened' | 'dispute.won' | 'dispute.lost' }
>;

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
  /** The remote processor's token for the card (CardProcessor.prepare). */
  token?: string;
  /** The partner asked for 3-D Secure whatever the issuer wants (Wyre's `trigger3ds`). */
  force3ds?: boolean;
}

/**
 * What the issuer wants before the hold can be captured; `PROCESSOR`: a remote processor has
 * not answered yet (its answer comes after COMMIT, decision 101).
 */
export type AuthorizationStep = 'NONE' | 'CODES' | '3DS' | 'PROCESSOR';

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
  | { outcome: 'DECLINED'; reason: DeclineReason }
  /** Recorded in the caller's transaction, asked of the processor after COMMIT (a remote processor). */
  | { outcome: 'PENDING' };

/** What the card functions are given: the processor the composition root chose. */
export interface CardsDeps extends AppContext {
  cardProcessor: CardProcessor;
}
