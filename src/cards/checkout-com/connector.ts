import type Payments from 'checkout-sdk-node/dist/api/payments/payments.js';
import type Tokens from 'checkout-sdk-node/dist/api/tokens/tokens.js';
import type { Money } from '../../platform/money.ts';
import type { CardConnector, ConnectorResult } from '../connector.ts';
import {
  acceptedActionSnapshot,
  authorizeRequest,
  captureRequest,
  paymentSnapshot,
  refundRequest,
  refundSnapshot,
  resultOfError,
  tokenRequest,
  voidRequest,
} from './transformers.ts';
import type { CkoActionAccepted, CkoCardTokenResponse, CkoPayment } from './types.ts';

/**
 * The money operations of the card connector contract on Checkout.com's SDK, each one a
 * transformer, the SDK call and the transformer back (docs/contract.md, decision 125). It shows
 * that the contract is not Stripe-shaped; it is not wired in compose.ts (events, balance
 * transactions and payouts, and a settings block, are not written for Checkout.com), so it is
 * the operations only.
 */
export type CheckoutComOperations = Pick<
  CardConnector,
  'name' | 'supports' | 'tokenize' | 'authorize' | 'retrieve' | 'capture' | 'void' | 'refund'
>;

/**
 * The SDK's `Checkout` instance as far as the connector uses it. The package's index types
 * resolve to `any` under NodeNext (its ESM declaration files import their siblings without an
 * extension), so its Payments and Tokens classes are named by their own declaration files, whose
 * members do resolve; a `new Checkout(…)` is passed as it is.
 */
export interface CheckoutSdk {
  payments: Payments;
  tokens: Tokens;
}

async function attempt<T>(call: () => Promise<T>): Promise<ConnectorResult<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return resultOfError(error);
  }
}

/**
 * `amounts` answers an earlier operation's amount and currency for a payment (Rampart's card
 * payment records hold them), for answers of Checkout.com that carry none.
 */
export function checkoutComConnector(
  cko: CheckoutSdk,
  amounts: (reference: string) => { amount: Money; currency: string },
): CheckoutComOperations {
  return {
    name: 'checkout-com',
    // A per-payment statement descriptor exists, but its shape (name and city) leaves no room
    // for Wyre's six-digit CARD2FA code where the buyer would see it: SMS and 3-D Secure only.
    supports: { statementCodes: false, partialCapture: true, partialRefund: true },
    tokenize: (card, billing) =>
      attempt(async () => {
        const token = (await cko.tokens.request(tokenRequest(card, billing))) as CkoCardTokenResponse;
        return { token: token.token };
      }),
    authorize: (op) =>
      attempt(async () => {
        const { body, idempotencyKey } = authorizeRequest(op);
        const payment = (await cko.payments.request(body, idempotencyKey)) as CkoPayment;
        return paymentSnapshot(payment, op);
      }),
    retrieve: (reference) =>
      attempt(async () =>
        paymentSnapshot((await cko.payments.get(reference)) as CkoPayment, amounts(reference)),
      ),
    capture: (op) =>
      attempt(async () => {
        const { paymentId, body, idempotencyKey } = captureRequest(op);
        await cko.payments.capture(paymentId, body, idempotencyKey);
        return acceptedActionSnapshot(op.reference, amounts(op.reference));
      }),
    void: (op) =>
      attempt(async () => {
        const { paymentId, body, idempotencyKey } = voidRequest(op);
        await cko.payments.void(paymentId, body, idempotencyKey);
        return acceptedActionSnapshot(op.reference, amounts(op.reference));
      }),
    refund: (op) =>
      attempt(async () => {
        const { paymentId, body, idempotencyKey } = refundRequest(op);
        const accepted = (await cko.payments.refund(paymentId, body, idempotencyKey)) as CkoActionAccepted;
        return refundSnapshot(op, accepted);
      }),
  } satisfies CheckoutComOperations;
}
