import Stripe from 'stripe';
import {
  type AuthorizeOperation,
  type CaptureOperation,
  type CardConnector,
  type ConnectorBilling,
  type ConnectorCard,
  type ConnectorResult,
  ConnectorSignatureError,
  type PaymentSnapshot,
  type ProcessorEvent,
  type ProcessorReference,
  type RefundOperation,
  type TimeRange,
  type VoidOperation,
} from '../connector.ts';
import { type StripeClientOptions, stripeClient } from './client.ts';
import { processorEventOf } from './events.ts';
import { AmountNotRepresentableError } from './minor-units.ts';
import { failureOf, isCardError, unexpectedStateIntent } from './outcomes.ts';
import {
  authorizeParams,
  balanceTransactionListParams,
  captureParams,
  paymentMethodParams,
  payoutListParams,
  refundParams,
} from './requests.ts';
import { balanceTransaction, declineOf, paymentSnapshot, payout, refundSnapshot } from './responses.ts';

export interface StripeConnectorOptions extends StripeClientOptions {
  /** The endpoint's signing secret (`whsec_…`), `RAMPART_STRIPE_WEBHOOK_SECRET`. */
  webhookSecret: string;
}

const EXPAND_CHARGE = { expand: ['latest_charge'] };

/**
 * The Stripe connector (docs/contract.md, "Card processors: Stripe"): thin calls to the official
 * SDK around the pure transformers in requests.ts, responses.ts and events.ts.
 */
export function stripeConnector(options: StripeConnectorOptions): CardConnector {
  const stripe = stripeClient(options);
  return {
    name: 'stripe',
    // Issuers rarely show a pending authorization's descriptor to the buyer, so a CARD2FA code
    // there could not be read back (docs/contract.md, decision 97).
    supports: { statementCodes: false, partialCapture: true, partialRefund: true },
    tokenize: (card, billing) => tokenize(stripe, card, billing),
    authorize: (op) => authorize(stripe, op),
    retrieve: (reference) => retrieve(stripe, reference),
    capture: (op) => capture(stripe, op),
    void: (op) => voidPayment(stripe, op),
    refund: (op) => refund(stripe, op),
    parseEvent: (rawBody, headers) => parseEvent(stripe, options.webhookSecret, rawBody, headers),
    balanceTransactions: (range) => balanceTransactions(stripe, range),
    payouts: (range) => payouts(stripe, range),
  };
}

function refusedAmount(error: AmountNotRepresentableError): ConnectorResult<never> {
  return { ok: false, unconfirmed: false, refused: error.message };
}

async function tokenize(
  stripe: Stripe,
  card: ConnectorCard,
  billing: ConnectorBilling,
): Promise<ConnectorResult<{ token: string }>> {
  try {
    const method = await stripe.paymentMethods.create(paymentMethodParams(card, billing));
    return { ok: true, value: { token: method.id } };
  } catch (error) {
    // A card Stripe refuses to even record (an invalid number) is a refusal of the request.
    if (isCardError(error))
      return { ok: false, unconfirmed: false, refused: `${error.code}: ${error.message}` };
    return failureOf(error);
  }
}

async function authorize(stripe: Stripe, op: AuthorizeOperation): Promise<ConnectorResult<PaymentSnapshot>> {
  let params: Stripe.PaymentIntentCreateParams;
  try {
    params = authorizeParams(op);
  } catch (error) {
    if (error instanceof AmountNotRepresentableError) return refusedAmount(error);
    throw error;
  }
  try {
    const intent = await stripe.paymentIntents.create(params, { idempotencyKey: op.idempotencyKey });
    return { ok: true, value: paymentSnapshot(intent) };
  } catch (error) {
    if (isCardError(error)) return { ok: true, value: declinedSnapshot(op, error) };
    return failureOf(error);
  }
}

/** A card error is Stripe's explicit decline: final, whatever state the intent it names shows. */
function declinedSnapshot(
  op: AuthorizeOperation,
  error: InstanceType<typeof Stripe.errors.StripeCardError>,
): PaymentSnapshot {
  const decline = declineOf(error.code, error.decline_code);
  const intent = error.payment_intent;
  if (intent) {
    const { challengeUrl: _challenge, authorizationExpiresAtMs: _expiry, ...rest } = paymentSnapshot(intent);
    return { ...rest, status: 'DECLINED', decline };
  }
  return {
    reference: '',
    status: 'DECLINED',
    amount: op.amount,
    currency: op.currency,
    capturedAmount: op.amount.minus(op.amount),
    decline,
  };
}

async function retrieve(
  stripe: Stripe,
  reference: ProcessorReference,
): Promise<ConnectorResult<PaymentSnapshot>> {
  try {
    return {
      ok: true,
      value: paymentSnapshot(await stripe.paymentIntents.retrieve(reference, EXPAND_CHARGE)),
    };
  } catch (error) {
    return failureOf(error);
  }
}

/**
 * Stripe refuses a second capture or cancel with `payment_intent_unexpected_state`; when the
 * intent already is where the call wanted it, the call succeeded before (a replay after a crash
 * whose first answer was lost) and its snapshot is the answer.
 */
async function alreadyDone(
  stripe: Stripe,
  error: unknown,
  wanted: Stripe.PaymentIntent.Status,
  reference: ProcessorReference,
): Promise<ConnectorResult<PaymentSnapshot> | null> {
  const found = unexpectedStateIntent(error);
  if (found === null) return null;
  let intent: Stripe.PaymentIntent;
  if (found === 'unknown') {
    try {
      intent = await stripe.paymentIntents.retrieve(reference, EXPAND_CHARGE);
    } catch (retrieveError) {
      return failureOf(retrieveError);
    }
  } else {
    intent = found;
  }
  return intent.status === wanted ? { ok: true, value: paymentSnapshot(intent) } : null;
}

async function capture(stripe: Stripe, op: CaptureOperation): Promise<ConnectorResult<PaymentSnapshot>> {
  let params: Stripe.PaymentIntentCaptureParams;
  try {
    params = captureParams(op);
  } catch (error) {
    if (error instanceof AmountNotRepresentableError) return refusedAmount(error);
    throw error;
  }
  try {
    const intent = await stripe.paymentIntents.capture(op.reference, params, {
      idempotencyKey: op.idempotencyKey,
    });
    return { ok: true, value: paymentSnapshot(intent) };
  } catch (error) {
    return (await alreadyDone(stripe, error, 'succeeded', op.reference)) ?? failureOf(error);
  }
}

async function voidPayment(stripe: Stripe, op: VoidOperation): Promise<ConnectorResult<PaymentSnapshot>> {
  try {
    const intent = await stripe.paymentIntents.cancel(op.reference, EXPAND_CHARGE, {
      idempotencyKey: op.idempotencyKey,
    });
    return { ok: true, value: paymentSnapshot(intent) };
  } catch (error) {
    return (await alreadyDone(stripe, error, 'canceled', op.reference)) ?? failureOf(error);
  }
}

async function refund(
  stripe: Stripe,
  op: RefundOperation,
): Promise<ConnectorResult<ReturnType<typeof refundSnapshot>>> {
  let params: Stripe.RefundCreateParams;
  try {
    params = refundParams(op);
  } catch (error) {
    if (error instanceof AmountNotRepresentableError) return refusedAmount(error);
    throw error;
  }
  try {
    const made = await stripe.refunds.create(params, { idempotencyKey: op.idempotencyKey });
    return { ok: true, value: refundSnapshot(made) };
  } catch (error) {
    return failureOf(error);
  }
}

function parseEvent(
  stripe: Stripe,
  webhookSecret: string,
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
): ProcessorEvent | null {
  const signature = headers['stripe-signature'];
  if (typeof signature !== 'string' || signature === '') {
    throw new ConnectorSignatureError('Stripe-Signature header missing');
  }
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(rawBody, signature, webhookSecret);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw new ConnectorSignatureError(error.message);
    }
    throw error;
  }
  return processorEventOf(event);
}

async function balanceTransactions(
  stripe: Stripe,
  range: TimeRange,
): Promise<ConnectorResult<ReturnType<typeof balanceTransaction>[]>> {
  try {
    const found: ReturnType<typeof balanceTransaction>[] = [];
    for await (const bt of stripe.balanceTransactions.list(balanceTransactionListParams(range))) {
      found.push(balanceTransaction(bt));
    }
    return { ok: true, value: found };
  } catch (error) {
    return failureOf(error);
  }
}

async function payouts(
  stripe: Stripe,
  range: TimeRange,
): Promise<ConnectorResult<ReturnType<typeof payout>[]>> {
  try {
    const found: ReturnType<typeof payout>[] = [];
    for await (const p of stripe.payouts.list(payoutListParams(range))) found.push(payout(p));
    return { ok: true, value: found };
  } catch (error) {
    return failureOf(error);
  }
}
