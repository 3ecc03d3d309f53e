import Stripe from 'stripe';
import type { ConnectorResult } from '../connector.ts';

/** A call's failure in the contract's two kinds (docs/contract.md, "Card processors"). */
export type ConnectorFailure = Exclude<ConnectorResult<never>, { ok: true }>;

/**
 * Stripe did not answer clearly: a timeout, a lost connection, a 5xx or a 429. The call may have
 * happened, so the caller keeps the operation pending and asks again with the same idempotency
 * key. Anything the SDK throws that is not Stripe's answer counts as unconfirmed too: Rampart
 * never guesses that a charge did not happen.
 */
export function failureOf(error: unknown): ConnectorFailure {
  if (!(error instanceof Stripe.errors.StripeError)) {
    return { ok: false, unconfirmed: true, detail: error instanceof Error ? error.message : String(error) };
  }
  const status = error.statusCode;
  if (
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    status === undefined ||
    status === 429 ||
    status >= 500
  ) {
    return {
      ok: false,
      unconfirmed: true,
      detail: `${error.type}${status ? ` ${status}` : ''}: ${error.message}`,
    };
  }
  // 4xx, the idempotency error included (the same key with other parameters): asking again changes nothing.
  return { ok: false, unconfirmed: false, refused: `${error.code ?? error.type}: ${error.message}` };
}

export function isCardError(error: unknown): error is InstanceType<typeof Stripe.errors.StripeCardError> {
  return error instanceof Stripe.errors.StripeCardError;
}

/** Stripe's answer that a PaymentIntent is not in a state the call needs (already captured, already canceled). */
export function unexpectedStateIntent(error: unknown): Stripe.PaymentIntent | 'unknown' | null {
  if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) return null;
  if (error.code !== 'payment_intent_unexpected_state') return null;
  return error.payment_intent ?? 'unknown';
}
