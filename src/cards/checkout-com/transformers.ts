import { currencyScale, Money } from '../../platform/money.ts';
import type {
  AuthorizeOperation,
  CaptureOperation,
  ConnectorBilling,
  ConnectorCard,
  ConnectorDecline,
  ConnectorResult,
  PaymentSnapshot,
  PaymentStatus,
  ProcessorReference,
  RefundOperation,
  RefundSnapshot,
  VoidOperation,
} from '../connector.ts';
import type {
  CkoActionAccepted,
  CkoCaptureRequest,
  CkoCardTokenRequest,
  CkoPayment,
  CkoPaymentRequest,
  CkoRefundRequest,
  CkoVoidRequest,
} from './types.ts';

/**
 * Checkout.com's request/response transformers and status map for the card connector contract
 * (cards/connector.ts; docs/contract.md, decision 125). Stateless: each takes Rampart's operation
 * and answers the SDK call's arguments, or takes Checkout.com's answer and gives Rampart's
 * snapshot. No HTTP here: the SDK's `payments` and `tokens` make the calls.
 */

/** A Money amount as Checkout.com's integer minor units; refuses one that is not exact. */
export function minorUnits(amount: Money, currency: string): number {
  const minor = amount.times(new Money(10).pow(currencyScale(currency)));
  if (!minor.isInteger() || minor.isNegative() || minor.greaterThan(Number.MAX_SAFE_INTEGER)) {
    throw new Error(`${amount.toFixed()} ${currency} is not a whole number of minor units`);
  }
  return minor.toNumber();
}

export function fromMinorUnits(minor: number, currency: string): Money {
  return new Money(minor).dividedBy(new Money(10).pow(currencyScale(currency)));
}

export function tokenRequest(card: ConnectorCard, billing: ConnectorBilling): CkoCardTokenRequest {
  return {
    type: 'card',
    number: card.pan,
    expiry_month: card.expMonth,
    expiry_year: card.expYear,
    cvv: card.cvv,
    name: billing.name,
    billing_address: {
      address_line1: billing.street1,
      city: billing.city,
      state: billing.state,
      zip: billing.postalCode,
      country: billing.country,
    },
  };
}

/** An SDK call's arguments: the body, and the key Checkout.com keeps as Cko-Idempotency-Key. */
export interface CkoCall<Body> {
  body: Body;
  idempotencyKey: string;
}

/**
 * A hold (`capture: false`) of exactly the quote's amount on the tokenized card, 3-D Secure
 * always enabled (the issuer decides whether to challenge, unless the partner forced it), the
 * buyer sent back to `returnUrl` whatever the outcome: Rampart then retrieves the payment.
 */
export function authorizeRequest(op: AuthorizeOperation): CkoCall<CkoPaymentRequest> {
  return {
    idempotencyKey: op.idempotencyKey,
    body: {
      source: { type: 'token', token: op.token },
      amount: minorUnits(op.amount, op.currency),
      currency: op.currency,
      payment_type: 'Regular',
      reference: op.orderId,
      capture: false,
      '3ds': {
        enabled: true,
        challenge_indicator: op.force3ds ? 'challenge_requested_mandate' : 'no_preference',
      },
      success_url: op.returnUrl,
      failure_url: op.returnUrl,
      metadata: { rampart_order_id: op.orderId },
    },
  };
}

/** The SDK's capture/void/refund take the payment id first. */
export interface CkoPaymentCall<Body> extends CkoCall<Body> {
  paymentId: ProcessorReference;
}

export function captureRequest(op: CaptureOperation): CkoPaymentCall<CkoCaptureRequest> {
  return {
    paymentId: op.reference,
    idempotencyKey: op.idempotencyKey,
    body: { amount: minorUnits(op.amount, op.currency), reference: op.idempotencyKey },
  };
}

export function voidRequest(op: VoidOperation): CkoPaymentCall<CkoVoidRequest> {
  return {
    paymentId: op.reference,
    idempotencyKey: op.idempotencyKey,
    body: { reference: op.idempotencyKey },
  };
}

export function refundRequest(op: RefundOperation): CkoPaymentCall<CkoRefundRequest> {
  return {
    paymentId: op.reference,
    idempotencyKey: op.idempotencyKey,
    body: { amount: minorUnits(op.amount, op.currency), reference: op.idempotencyKey },
  };
}

/**
 * Checkout.com's payment status in Rampart's terms. Only what Checkout.com states is final:
 * Authorized / Card Verified hold the money; Pending with a redirect is the issuer's 3-D Secure
 * challenge; Captured and Partially Captured took it (and Refunded / Partially Refunded had
 * taken it: refunds are RefundSnapshots of their own); Voided released it; Declined refused it.
 * Anything else (Pending without a redirect, Retry Scheduled, a status added later) is PENDING.
 */
export function statusOf(payment: Pick<CkoPayment, 'status' | '_links'>): PaymentStatus {
  switch (payment.status) {
    case 'Authorized':
    case 'Card Verified':
      return 'AUTHORIZED';
    case 'Pending':
      return payment._links.redirect ? 'CHALLENGE' : 'PENDING';
    case 'Captured':
    case 'Partially Captured':
    case 'Refunded':
    case 'Partially Refunded':
      return 'CAPTURED';
    case 'Voided':
      return 'VOIDED';
    case 'Declined':
      return 'DECLINED';
    default:
      return 'PENDING';
  }
}

/** Checkout.com's 3-D Secure refusals (20150 to 20154) are the buyer failing authentication. */
const AUTHENTICATION_CODES = new Set(['20150', '20151', '20152', '20153', '20154']);

/** A Declined payment's `response_code` in Rampart's decline reasons; the code is kept as it is. */
export function declineOf(responseCode: string | undefined): ConnectorDecline {
  const processorCode = responseCode ?? 'unknown';
  if (processorCode === '20051') return { reason: 'INSUFFICIENT_FUNDS', processorCode };
  if (AUTHENTICATION_CODES.has(processorCode)) return { reason: 'AUTHENTICATION', processorCode };
  return { reason: 'DO_NOT_HONOR', processorCode };
}

/**
 * A payment answer as Rampart's snapshot. A 202 answer carries no amount: the operation's own
 * (`asked`) stands in. The captured amount is Checkout.com's balance where it gives one.
 */
export function paymentSnapshot(
  payment: CkoPayment,
  asked: { amount: Money; currency: string },
): PaymentSnapshot {
  const currency = payment.currency ?? asked.currency;
  const amount = payment.amount === undefined ? asked.amount : fromMinorUnits(payment.amount, currency);
  const status = statusOf(payment);
  const captured = payment.balances
    ? fromMinorUnits(payment.balances.total_captured, currency)
    : status === 'CAPTURED'
      ? amount
      : new Money(0);
  const snapshot: PaymentSnapshot = {
    reference: payment.id,
    status,
    amount,
    currency,
    capturedAmount: captured,
  };
  if (status === 'CHALLENGE') snapshot.challengeUrl = payment._links.redirect!.href;
  if (status === 'DECLINED') snapshot.decline = declineOf(payment.response_code);
  if (payment.expires_on) snapshot.authorizationExpiresAtMs = Date.parse(payment.expires_on);
  return snapshot;
}

/**
 * The 202 of a capture or a void: Checkout.com accepted the action and reports its result by
 * event (payment_captured, payment_voided) or on GET /payments/{id}, so the payment stays
 * PENDING until then.
 */
export function acceptedActionSnapshot(
  reference: ProcessorReference,
  asked: { amount: Money; currency: string },
): PaymentSnapshot {
  return {
    reference,
    status: 'PENDING',
    amount: asked.amount,
    currency: asked.currency,
    capturedAmount: new Money(0),
  };
}

/** The 202 of a refund: accepted, its result comes by event (payment_refunded) or by a poll. */
export function refundSnapshot(op: RefundOperation, accepted: CkoActionAccepted): RefundSnapshot {
  return {
    reference: accepted.action_id,
    paymentReference: op.reference,
    status: 'PENDING',
    amount: op.amount,
    currency: op.currency,
  };
}

/**
 * An SDK error as the contract's outcome. checkout-sdk-node throws errors carrying the HTTP
 * status as `http_code` (ApiTimeout without one): no answer, 429 and 5xx are unconfirmed (asked
 * again with the same idempotency key); any other 4xx is Checkout.com refusing the request.
 */
export function resultOfError<T>(error: unknown): ConnectorResult<T> {
  const status = (error as { http_code?: unknown } | null)?.http_code;
  const name = error instanceof Error ? error.name : 'error';
  if (typeof status !== 'number' || status >= 500 || status === 429) {
    return { ok: false, unconfirmed: true, detail: `Checkout.com: ${name} ${String(status ?? 'no answer')}` };
  }
  return { ok: false, unconfirmed: false, refused: `Checkout.com refused the request: ${name} ${status}` };
}
