import type Stripe from 'stripe';
import type {
  AuthorizeOperation,
  CaptureOperation,
  ConnectorBilling,
  ConnectorCard,
  RefundOperation,
  TimeRange,
} from '../connector.ts';
import { toMinorUnits } from './minor-units.ts';

/**
 * Pure request builders: Rampart's operations in Stripe's own parameter types. No I/O here, so
 * what is sent can be checked against Stripe's documentation without a network.
 */

/** A PaymentMethod made server-side from the raw card (docs/going-to-production.md: raw card data access). */
export function paymentMethodParams(
  card: ConnectorCard,
  billing: ConnectorBilling,
): Stripe.PaymentMethodCreateParams {
  return {
    type: 'card',
    card: { number: card.pan, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvv },
    billing_details: {
      name: billing.name,
      email: billing.email,
      phone: billing.phone,
      address: {
        line1: billing.street1,
        city: billing.city,
        state: billing.state,
        postal_code: billing.postalCode,
        country: billing.country,
      },
    },
  };
}

/**
 * Manual capture: the hold is captured once the order's crypto is delivered and voided if it
 * fails (docs/contract.md, "Card processors: Stripe"). `confirm: true` with `return_url` makes
 * Stripe answer a 3-D Secure step as a redirect Rampart can hand to the buyer.
 */
export function authorizeParams(op: AuthorizeOperation): Stripe.PaymentIntentCreateParams {
  const params: Stripe.PaymentIntentCreateParams = {
    amount: toMinorUnits(op.amount, op.currency),
    currency: op.currency.toLowerCase(),
    payment_method: op.token,
    capture_method: 'manual',
    confirm: true,
    return_url: op.returnUrl,
    metadata: { order_id: op.orderId },
    expand: ['latest_charge'],
  };
  if (op.force3ds) params.payment_method_options = { card: { request_three_d_secure: 'any' } };
  if (op.statementDescriptor !== undefined) params.statement_descriptor_suffix = op.statementDescriptor;
  return params;
}

export function captureParams(op: CaptureOperation): Stripe.PaymentIntentCaptureParams {
  return { amount_to_capture: toMinorUnits(op.amount, op.currency), expand: ['latest_charge'] };
}

export function refundParams(op: RefundOperation): Stripe.RefundCreateParams {
  const params: Stripe.RefundCreateParams = {
    payment_intent: op.reference,
    amount: toMinorUnits(op.amount, op.currency),
  };
  if (op.orderId !== undefined) params.metadata = { order_id: op.orderId };
  return params;
}

/** Stripe's `created` filter is in whole seconds: the range is widened to whole seconds, never narrowed. */
export function createdRange(range: TimeRange): Stripe.RangeQueryParam {
  return { gte: Math.floor(range.fromMs / 1000), lt: Math.ceil(range.toMs / 1000) };
}

export function balanceTransactionListParams(range: TimeRange): Stripe.BalanceTransactionListParams {
  return { created: createdRange(range), limit: 100, expand: ['data.source'] };
}

export function payoutListParams(range: TimeRange): Stripe.PayoutListParams {
  return { created: createdRange(range), limit: 100 };
}
