import type { Money } from '../platform/money.ts';
import type { CheckedCard } from './card-input.ts';

/**
 * The contract a remote card processor's connector fulfils (docs/contract.md, "Card
 * processors"). A connector is a set of stateless request/response transformers around the
 * processor's own SDK, plus a status map: only an explicit success or failure the processor
 * states is final, anything else is PENDING and is resolved later by the processor's event or a
 * status poll, never guessed. Rampart's card payment records (cards/payments-store.ts) hold the
 * state; a connector keeps none.
 *
 * Every call that moves money carries an idempotency key derived from Rampart's own ids
 * (`paymentKey`), so a retry after a crash asks the processor the same question and gets the
 * first answer back instead of charging twice.
 *
 * Nothing here is shaped after one processor: the Stripe connector (cards/stripe/) and the
 * Checkout.com transformer types (cards/checkout-com/) both fit it.
 */
export interface CardConnector {
  /** Its name in settings and records: `stripe`. */
  readonly name: string;
  /** What this processor can do beyond authorize, capture, void and refund. */
  readonly supports: ConnectorSupport;
  /**
   * Exchanges the card for the processor's reusable reference (moves no money): the later
   * authorize names the token, so a replay after a crash repeats the same request without
   * Rampart ever keeping the card number.
   */
  tokenize(card: ConnectorCard, billing: ConnectorBilling): Promise<ConnectorResult<{ token: string }>>;
  /** Holds the amount (manual capture), asking for 3-D Secure where the issuer wants it. */
  authorize(request: AuthorizeOperation): Promise<ConnectorResult<PaymentSnapshot>>;
  /** The payment as the processor has it now: the status poll, and the answer after a 3-D Secure return. */
  retrieve(reference: ProcessorReference): Promise<ConnectorResult<PaymentSnapshot>>;
  /** Captures all or part of the held amount. */
  capture(request: CaptureOperation): Promise<ConnectorResult<PaymentSnapshot>>;
  /** Releases a hold that was never captured. */
  void(request: VoidOperation): Promise<ConnectorResult<PaymentSnapshot>>;
  /** Gives back all or part of a captured amount. */
  refund(request: RefundOperation): Promise<ConnectorResult<RefundSnapshot>>;
  /**
   * Verifies an event the processor sent (its signature over the raw bytes) and turns it into
   * Rampart's terms; `null` for an event type Rampart has no use for. Throws
   * ConnectorSignatureError when the signature does not verify.
   */
  parseEvent(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): ProcessorEvent | null;
  /** The processor's ledger of money moved for the operator's account, for reconciliation. */
  balanceTransactions(range: TimeRange): Promise<ConnectorResult<BalanceTransaction[]>>;
  /** The processor's payouts to the operator's bank, for reconciliation. */
  payouts(range: TimeRange): Promise<ConnectorResult<Payout[]>>;
}

export interface ConnectorSupport {
  /** A code in a small authorization's statement descriptor (Wyre's CARD2FA). */
  statementCodes: boolean;
  partialCapture: boolean;
  partialRefund: boolean;
}

/** The card as the connector sends it, server-side (docs/going-to-production.md on PCI scope). */
export type ConnectorCard = Pick<CheckedCard, 'pan' | 'expMonth' | 'expYear' | 'cvv'>;

export interface ConnectorBilling {
  name: string;
  email: string;
  phone: string;
  street1: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

/** The processor's id of a payment (a PaymentIntent, a Checkout.com payment). */
export type ProcessorReference = string;

export interface AuthorizeOperation {
  /** `paymentKey(orderId, 'authorize')`. */
  idempotencyKey: string;
  orderId: string;
  token: string;
  /** Exactly the quote's charged amount, in major units (the connector converts to minor units). */
  amount: Money;
  currency: string;
  /** Where the issuer's 3-D Secure page sends the buyer back. */
  returnUrl: string;
  /** Ask for 3-D Secure even where the issuer would not (Wyre's `trigger3ds`). */
  force3ds: boolean;
  /** What the buyer's statement shows; a CARD2FA code rides here where `supports.statementCodes`. */
  statementDescriptor?: string;
}

export interface CaptureOperation {
  idempotencyKey: string;
  reference: ProcessorReference;
  amount: Money;
  currency: string;
}

export interface VoidOperation {
  idempotencyKey: string;
  reference: ProcessorReference;
}

export interface RefundOperation {
  idempotencyKey: string;
  reference: ProcessorReference;
  amount: Money;
  currency: string;
  /** Rampart's order, carried in the refund's metadata so the processor's events and ledger name it. */
  orderId?: string;
}

/**
 * Rampart's view of a payment at the processor. `AUTHORIZED`: held, capturable;
 * `CHALLENGE`: the issuer wants 3-D Secure at `challengeUrl`; `DECLINED`: refused for `decline`;
 * `PENDING`: the processor has not said (processing, an unknown status, no answer).
 */
export type PaymentStatus = 'PENDING' | 'CHALLENGE' | 'AUTHORIZED' | 'CAPTURED' | 'VOIDED' | 'DECLINED';

export interface PaymentSnapshot {
  reference: ProcessorReference;
  status: PaymentStatus;
  amount: Money;
  currency: string;
  capturedAmount: Money;
  /** Set for CHALLENGE. */
  challengeUrl?: string;
  /** Set for DECLINED. */
  decline?: ConnectorDecline;
  /** When the hold lapses if not captured, where the processor says. */
  authorizationExpiresAtMs?: number;
}

export type RefundStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface RefundSnapshot {
  reference: string;
  paymentReference: ProcessorReference;
  status: RefundStatus;
  amount: Money;
  currency: string;
}

/** Why the issuer or processor refused, in Rampart's terms plus the processor's own code for the record. */
export interface ConnectorDecline {
  reason:
    | 'DO_NOT_HONOR'
    | 'INSUFFICIENT_FUNDS'
    | 'AVS_ZIP'
    | 'CREDIT'
    | 'PREPAID'
    | 'BRAND'
    | 'AUTHENTICATION';
  processorCode: string;
}

/**
 * A call's outcome. `unconfirmed`: the processor did not answer clearly (a timeout, a 5xx, a
 * lost connection): the operation may or may not have happened, so the caller keeps it pending
 * and asks again with the same idempotency key. `refused`: the processor answered that the
 * request itself is wrong (a 4xx other than a decline); retrying it changes nothing.
 */
export type ConnectorResult<T> =
  | { ok: true; value: T }
  | { ok: false; unconfirmed: true; detail: string }
  | { ok: false; unconfirmed: false; refused: string };

/** A processor event in Rampart's terms; `eventId` makes a repeated delivery a no-op. */
export type ProcessorEvent =
  | { eventId: string; kind: 'payment.updated'; orderId: string | null; payment: PaymentSnapshot }
  | { eventId: string; kind: 'refund.updated'; orderId: string | null; refund: RefundSnapshot }
  | {
      eventId: string;
      kind: 'dispute.opened' | 'dispute.won' | 'dispute.lost';
      orderId: string | null;
      dispute: DisputeSnapshot;
    };

export interface DisputeSnapshot {
  reference: string;
  paymentReference: ProcessorReference;
  amount: Money;
  currency: string;
  reason: string;
}

export interface TimeRange {
  fromMs: number;
  toMs: number;
}

/** One movement on the processor's books: a charge, a refund, a dispute, a fee, a payout. */
export interface BalanceTransaction {
  reference: string;
  type: 'charge' | 'refund' | 'dispute' | 'dispute_fee' | 'payout' | 'adjustment' | 'other';
  /** The order it belongs to, when the processor carries Rampart's id. */
  orderId: string | null;
  amount: Money;
  fee: Money;
  currency: string;
  createdAtMs: number;
  payoutReference: string | null;
  /** The payment it belongs to, when the processor names it: how an order without `orderId` is found. */
  paymentReference?: ProcessorReference | null;
}

export interface Payout {
  reference: string;
  amount: Money;
  currency: string;
  status: 'PENDING' | 'PAID' | 'FAILED';
  arrivalAtMs: number;
}

export class ConnectorSignatureError extends Error {}

/**
 * The idempotency key of one operation on one order's payment: the same operation asked again,
 * after any crash, carries the same key. `n` numbers repeated operations of a kind (refunds).
 */
export function paymentKey(
  orderId: string,
  operation: 'authorize' | 'capture' | 'void' | 'refund',
  n = 1,
): string {
  return `rampart-${orderId}-${operation}-${n}`;
}
