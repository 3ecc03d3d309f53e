import type Stripe from 'stripe';
import type {
  BalanceTransaction,
  ConnectorDecline,
  DisputeSnapshot,
  PaymentSnapshot,
  PaymentStatus,
  Payout,
  RefundSnapshot,
  RefundStatus,
} from '../connector.ts';
import { fromMinorUnits } from './minor-units.ts';

/**
 * Pure response mappers: Stripe's objects in Rampart's terms. Only a status Stripe states
 * explicitly is final; anything else (processing, a status added later) is PENDING, resolved by
 * the next event or status poll (docs/contract.md, "Card processors").
 */

const INSUFFICIENT_FUNDS = new Set(['insufficient_funds']);
const AVS_ZIP = new Set(['incorrect_zip']);
const AUTHENTICATION = new Set([
  'authentication_required',
  'authentication_not_handled',
  'payment_intent_authentication_failure',
]);

/** Stripe's `decline_code` (the issuer's reason) wins over its `code` (the error's kind). */
export function declineOf(
  code: string | undefined | null,
  declineCode: string | undefined | null,
): ConnectorDecline {
  const codes = [declineCode, code].filter((c): c is string => typeof c === 'string' && c !== '');
  const processorCode = codes[0] ?? 'unknown';
  const has = (set: Set<string>) => codes.some((c) => set.has(c));
  if (has(INSUFFICIENT_FUNDS)) return { reason: 'INSUFFICIENT_FUNDS', processorCode };
  if (has(AVS_ZIP)) return { reason: 'AVS_ZIP', processorCode };
  if (has(AUTHENTICATION)) return { reason: 'AUTHENTICATION', processorCode };
  return { reason: 'DO_NOT_HONOR', processorCode };
}

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : value.id;
}

export function paymentStatusOf(pi: Stripe.PaymentIntent): PaymentStatus {
  switch (pi.status) {
    case 'requires_capture':
      return 'AUTHORIZED';
    case 'succeeded':
      return 'CAPTURED';
    case 'canceled':
      return 'VOIDED';
    case 'requires_action':
      return pi.next_action?.redirect_to_url?.url ? 'CHALLENGE' : 'PENDING';
    case 'requires_payment_method':
      // A fresh intent has no error yet; only a failed attempt is a decline.
      return pi.last_payment_error ? 'DECLINED' : 'PENDING';
    default:
      return 'PENDING';
  }
}

/** When the hold lapses: the charge's `capture_before`, present where `latest_charge` was expanded. */
function captureBeforeMs(pi: Stripe.PaymentIntent): number | undefined {
  const charge = pi.latest_charge;
  if (charge === null || typeof charge === 'string') return undefined;
  const seconds = charge.payment_method_details?.card?.capture_before;
  return typeof seconds === 'number' ? seconds * 1000 : undefined;
}

export function paymentSnapshot(pi: Stripe.PaymentIntent): PaymentSnapshot {
  const status = paymentStatusOf(pi);
  const snapshot: PaymentSnapshot = {
    reference: pi.id,
    status,
    amount: fromMinorUnits(pi.amount, pi.currency),
    currency: pi.currency.toUpperCase(),
    capturedAmount: fromMinorUnits(pi.amount_received, pi.currency),
  };
  if (status === 'CHALLENGE') snapshot.challengeUrl = pi.next_action?.redirect_to_url?.url ?? undefined;
  if (status === 'DECLINED') {
    snapshot.decline = declineOf(pi.last_payment_error?.code, pi.last_payment_error?.decline_code);
  }
  const expiresAt = captureBeforeMs(pi);
  if (expiresAt !== undefined && status === 'AUTHORIZED') snapshot.authorizationExpiresAtMs = expiresAt;
  return snapshot;
}

/** Rampart's order id as the connector wrote it into Stripe's metadata, if this object carries it. */
export function orderIdOf(metadata: Stripe.Metadata | null | undefined): string | null {
  const id = metadata?.order_id;
  return typeof id === 'string' && id !== '' ? id : null;
}

export function refundStatusOf(status: string | null): RefundStatus {
  if (status === 'succeeded') return 'SUCCEEDED';
  if (status === 'failed' || status === 'canceled') return 'FAILED';
  return 'PENDING';
}

export function refundSnapshot(refund: Stripe.Refund): RefundSnapshot {
  return {
    reference: refund.id,
    paymentReference: idOf(refund.payment_intent) ?? idOf(refund.charge) ?? '',
    status: refundStatusOf(refund.status),
    amount: fromMinorUnits(refund.amount, refund.currency),
    currency: refund.currency.toUpperCase(),
  };
}

export function disputeSnapshot(dispute: Stripe.Dispute): DisputeSnapshot {
  return {
    reference: dispute.id,
    paymentReference: idOf(dispute.payment_intent) ?? idOf(dispute.charge) ?? '',
    amount: fromMinorUnits(dispute.amount, dispute.currency),
    currency: dispute.currency.toUpperCase(),
    reason: dispute.reason,
  };
}

/**
 * An inquiry (`warning_*`) is a question from the issuer, not a chargeback: no money leaves the
 * balance, so it is not a dispute in Rampart's terms (docs/contract.md, decision 99).
 */
export function isInquiry(dispute: Stripe.Dispute): boolean {
  return dispute.status.startsWith('warning_');
}

function balanceTypeOf(bt: Stripe.BalanceTransaction): BalanceTransaction['type'] {
  switch (bt.type) {
    case 'charge':
    case 'payment':
      return 'charge';
    case 'refund':
    case 'payment_refund':
      return 'refund';
    case 'payout':
    case 'payout_cancel':
    case 'payout_failure':
      return 'payout';
    case 'adjustment':
      return bt.reporting_category === 'dispute' || bt.reporting_category === 'dispute_reversal'
        ? 'dispute'
        : 'adjustment';
    case 'stripe_fee':
      return 'dispute_fee';
    default:
      return 'other';
  }
}

/** The order and payment a transaction's source names, where `source` was expanded. */
function sourceLinks(source: Stripe.BalanceTransaction['source']): {
  orderId: string | null;
  payment: string | null;
} {
  if (source === null || typeof source === 'string') return { orderId: null, payment: null };
  switch (source.object) {
    case 'charge':
      return { orderId: orderIdOf(source.metadata), payment: idOf(source.payment_intent) };
    case 'refund':
      return { orderId: orderIdOf(source.metadata), payment: idOf(source.payment_intent) };
    case 'dispute':
      return { orderId: orderIdOf(source.metadata), payment: idOf(source.payment_intent) };
    default:
      return { orderId: null, payment: null };
  }
}

export function balanceTransaction(bt: Stripe.BalanceTransaction): BalanceTransaction {
  const type = balanceTypeOf(bt);
  const links = sourceLinks(bt.source);
  const sourceId = idOf(bt.source);
  return {
    reference: bt.id,
    type,
    orderId: links.orderId,
    amount: fromMinorUnits(bt.amount, bt.currency),
    fee: fromMinorUnits(bt.fee, bt.currency),
    currency: bt.currency.toUpperCase(),
    createdAtMs: bt.created * 1000,
    payoutReference: type === 'payout' ? sourceId : null,
    paymentReference: links.payment,
  };
}

export function payout(p: Stripe.Payout): Payout {
  const status: Payout['status'] =
    p.status === 'paid' ? 'PAID' : p.status === 'failed' || p.status === 'canceled' ? 'FAILED' : 'PENDING';
  return {
    reference: p.id,
    amount: fromMinorUnits(p.amount, p.currency),
    currency: p.currency.toUpperCase(),
    status,
    arrivalAtMs: p.arrival_date * 1000,
  };
}
