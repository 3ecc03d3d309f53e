// An emulator of Stripe's API for tests: not Stripe. Stripe's error envelope.
import type Stripe from 'stripe';

export type StripeErrorCode = NonNullable<Stripe.PaymentIntent.LastPaymentError['code']>;

/** `{error: {type, code, decline_code?, message, param?, payment_intent?}}` with its HTTP status. */
export interface EmulatedError {
  status: number;
  body: {
    error: {
      type: 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error';
      code?: StripeErrorCode;
      decline_code?: string;
      message: string;
      param?: string;
      payment_intent?: Stripe.PaymentIntent;
      doc_url?: string;
    };
  };
}

export class StripeEmulatorError extends Error {
  constructor(readonly answer: EmulatedError) {
    super(answer.body.error.message);
  }
}

export function invalidRequest(
  message: string,
  options: {
    code?: StripeErrorCode;
    param?: string;
    status?: number;
    paymentIntent?: Stripe.PaymentIntent;
  } = {},
): StripeEmulatorError {
  return new StripeEmulatorError({
    status: options.status ?? 400,
    body: {
      error: {
        type: 'invalid_request_error',
        message,
        ...(options.code
          ? { code: options.code, doc_url: `https://stripe.com/docs/error-codes/${options.code}` }
          : {}),
        ...(options.param ? { param: options.param } : {}),
        ...(options.paymentIntent ? { payment_intent: options.paymentIntent } : {}),
      },
    },
  });
}

export function cardError(
  message: string,
  code: StripeErrorCode,
  declineCode: string | undefined,
  paymentIntent: Stripe.PaymentIntent,
): StripeEmulatorError {
  return new StripeEmulatorError({
    status: 402,
    body: {
      error: {
        type: 'card_error',
        code,
        ...(declineCode ? { decline_code: declineCode } : {}),
        message,
        payment_intent: paymentIntent,
      },
    },
  });
}
