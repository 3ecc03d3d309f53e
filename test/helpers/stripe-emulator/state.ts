// An emulator of Stripe's API for tests: not Stripe. The account's objects and how Stripe moves them.
import type Stripe from 'stripe';
import { cardByNumber, cardByPaymentMethodId, type TestCard } from './cards.ts';
import { cardError, invalidRequest, StripeEmulatorError } from './errors.ts';
import { DISPUTE_FEE, fixture, newId, processingFee } from './objects.ts';

/** Where an intent's card stands beyond what the PaymentIntent object shows. */
interface IntentRecord {
  card: TestCard;
  authenticated: boolean;
}

export interface EmulatorEvents {
  emit(
    type: Stripe.Event['type'],
    object: unknown,
    request?: { id: string | null; idempotency_key: string | null },
  ): void;
}

const DAY = 86_400;

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A card number that is not one of Stripe's test cards: test mode declines it. */
function unknownCard(number: string): TestCard {
  return {
    number,
    brand: number.startsWith('5') ? 'mastercard' : 'visa',
    funding: 'credit',
    behaviour: {
      kind: 'decline',
      code: 'card_declined',
      declineCode: 'test_mode_live_card',
      message: 'Your card was declined. Your request was in test mode, but used a non test card.',
    },
  };
}

const MINIMUM_CHARGE: Record<string, number> = {
  usd: 50,
  eur: 50,
  gbp: 30,
  cad: 50,
  aud: 50,
  chf: 50,
  jpy: 50,
};
const CURRENCIES = new Set([
  'usd',
  'eur',
  'gbp',
  'cad',
  'aud',
  'chf',
  'jpy',
  'nok',
  'sek',
  'dkk',
  'pln',
  'czk',
  'mxn',
  'nzd',
  'hkd',
  'brl',
]);

export class StripeState {
  readonly paymentMethods = new Map<string, { method: Stripe.PaymentMethod; card: TestCard }>();
  readonly intents = new Map<string, Stripe.PaymentIntent>();
  private readonly intentRecords = new Map<string, IntentRecord>();
  readonly charges = new Map<string, Stripe.Charge>();
  readonly refunds = new Map<string, Stripe.Refund>();
  readonly disputes = new Map<string, Stripe.Dispute>();
  readonly balanceTransactions: Stripe.BalanceTransaction[] = [];
  readonly payouts = new Map<string, Stripe.Payout>();

  constructor(
    private readonly events: EmulatorEvents,
    private readonly nowSeconds: () => number,
    private readonly baseUrl: () => string,
  ) {}

  // ---- PaymentMethods ----

  createPaymentMethod(params: {
    number: string;
    expMonth: number;
    expYear: number;
    cvc: string | undefined;
    billing: Stripe.PaymentMethod.BillingDetails;
    metadata: Stripe.Metadata;
  }): Stripe.PaymentMethod {
    if (!/^\d{12,19}$/.test(params.number) || !luhnValid(params.number)) {
      throw cardErrorWithoutIntent('Your card number is incorrect.', 'incorrect_number', 'card[number]');
    }
    if (params.expMonth < 1 || params.expMonth > 12) {
      throw cardErrorWithoutIntent(
        "Your card's expiration month is invalid.",
        'invalid_expiry_month',
        'card[exp_month]',
      );
    }
    const card = cardByNumber(params.number) ?? unknownCard(params.number);
    return this.storePaymentMethod(
      newId('pm'),
      card,
      params.expMonth,
      params.expYear,
      params.billing,
      params.metadata,
    );
  }

  private storePaymentMethod(
    id: string,
    card: TestCard,
    expMonth: number,
    expYear: number,
    billing: Stripe.PaymentMethod.BillingDetails,
    metadata: Stripe.Metadata,
  ): Stripe.PaymentMethod {
    const base = fixture('payment_method');
    const method: Stripe.PaymentMethod = {
      ...base,
      id,
      created: this.nowSeconds(),
      billing_details: billing,
      metadata,
      customer: null,
      card: base.card
        ? {
            ...base.card,
            brand: card.brand,
            display_brand: card.brand,
            funding: card.funding,
            last4: card.number.slice(-4),
            exp_month: expMonth,
            exp_year: expYear,
            fingerprint: `fp${card.number.slice(-8)}`,
            networks: { available: [card.brand], preferred: null },
            wallet: null,
          }
        : undefined,
    };
    this.paymentMethods.set(id, { method, card });
    return method;
  }

  paymentMethod(id: string, param = 'payment_method'): { method: Stripe.PaymentMethod; card: TestCard } {
    const found = this.paymentMethods.get(id);
    if (found) return found;
    const magic = cardByPaymentMethodId(id);
    if (magic) {
      const billing = fixture('payment_method').billing_details;
      this.storePaymentMethod(id, magic, 12, new Date().getUTCFullYear() + 3, billing, {});
      return this.paymentMethods.get(id) as { method: Stripe.PaymentMethod; card: TestCard };
    }
    throw invalidRequest(`No such PaymentMethod: '${id}'`, { code: 'resource_missing', param, status: 400 });
  }

  // ---- PaymentIntents ----

  intent(id: string, param = 'intent'): Stripe.PaymentIntent {
    const found = this.intents.get(id);
    if (!found)
      throw invalidRequest(`No such payment_intent: '${id}'`, {
        code: 'resource_missing',
        param,
        status: 404,
      });
    return found;
  }

  createIntent(params: {
    amount: number;
    currency: string;
    paymentMethod: string | undefined;
    captureMethod: Stripe.PaymentIntent.CaptureMethod;
    confirm: boolean;
    returnUrl: string | undefined;
    metadata: Stripe.Metadata;
    requestThreeDSecure: 'any' | 'automatic' | 'challenge' | undefined;
    statementDescriptorSuffix: string | undefined;
    description: string | undefined;
  }): Stripe.PaymentIntent {
    if (!CURRENCIES.has(params.currency)) {
      throw invalidRequest(
        `Invalid currency: ${params.currency}. Stripe currently supports these currencies: ${[...CURRENCIES].join(', ')}`,
        { param: 'currency' },
      );
    }
    const minimum = MINIMUM_CHARGE[params.currency] ?? 50;
    if (params.amount < minimum) {
      throw invalidRequest(`Amount must be at least ${minimum} ${params.currency} in minor units`, {
        code: 'amount_too_small',
        param: 'amount',
      });
    }
    if (params.returnUrl !== undefined && !params.confirm) {
      throw invalidRequest('You can only pass `return_url` when `confirm` is true.', { param: 'return_url' });
    }
    const method = params.paymentMethod ? this.paymentMethod(params.paymentMethod) : undefined;
    if (params.confirm && !method) {
      throw invalidRequest("You cannot confirm this PaymentIntent because it's missing a payment method.", {
        code: 'payment_intent_unexpected_state',
      });
    }
    const id = newId('pi');
    const base = fixture('payment_intent');
    const intent: Stripe.PaymentIntent = {
      ...base,
      id,
      amount: params.amount,
      amount_capturable: 0,
      amount_received: 0,
      automatic_payment_methods: null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: params.captureMethod,
      client_secret: `${id}_secret_${newId('s').slice(2)}`,
      confirmation_method: 'automatic',
      created: this.nowSeconds(),
      currency: params.currency,
      description: params.description ?? null,
      last_payment_error: null,
      latest_charge: null,
      metadata: params.metadata,
      next_action: null,
      payment_method: method ? method.method.id : null,
      payment_method_configuration_details: null,
      payment_method_options: params.requestThreeDSecure
        ? ({
            card: { request_three_d_secure: params.requestThreeDSecure },
          } as Stripe.PaymentIntent.PaymentMethodOptions)
        : {},
      payment_method_types: ['card'],
      processing: null,
      shipping: null,
      statement_descriptor_suffix: params.statementDescriptorSuffix ?? null,
      status: method ? 'requires_confirmation' : 'requires_payment_method',
      transfer_data: null,
    };
    this.intents.set(id, intent);
    if (method) this.intentRecords.set(id, { card: method.card, authenticated: false });
    this.events.emit('payment_intent.created', intent);
    if (params.confirm) this.confirm(intent, params.returnUrl, params.requestThreeDSecure);
    return intent;
  }

  private confirm(
    intent: Stripe.PaymentIntent,
    returnUrl: string | undefined,
    request3ds: string | undefined,
  ): void {
    const record = this.intentRecords.get(intent.id) as IntentRecord;
    const wants3ds =
      record.card.behaviour.kind === 'three_d_secure' || request3ds === 'any' || request3ds === 'challenge';
    if (wants3ds && !record.authenticated) {
      if (!returnUrl) {
        // Without a return URL Stripe can only hand the step to its own client SDK.
        intent.status = 'requires_action';
        intent.next_action = {
          type: 'use_stripe_sdk',
          use_stripe_sdk: {},
        } as Stripe.PaymentIntent.NextAction;
      } else {
        intent.status = 'requires_action';
        intent.next_action = {
          type: 'redirect_to_url',
          redirect_to_url: { url: `${this.baseUrl()}/3ds/${intent.id}`, return_url: returnUrl },
        } as Stripe.PaymentIntent.NextAction;
      }
      this.events.emit('payment_intent.requires_action', intent);
      return;
    }
    const failure = this.authorizeCard(intent, record.card);
    if (failure) throw failure;
  }

  /** The issuer's answer to an authorization; a decline comes back as the card error Stripe answers. */
  private authorizeCard(intent: Stripe.PaymentIntent, card: TestCard): StripeEmulatorError | null {
    intent.next_action = null;
    const method = intent.payment_method as string;
    const billingPostal = this.paymentMethods.get(method)?.method.billing_details.address?.postal_code;
    let decline: { code: string; declineCode?: string; message: string } | null = null;
    if (card.behaviour.kind === 'decline') decline = card.behaviour;
    if (card.behaviour.kind === 'zip_check_fails' && billingPostal) {
      decline = { code: 'incorrect_zip', message: "Your card's zip code is incorrect." };
    }
    const charge = this.newCharge(intent, card, decline);
    intent.latest_charge = charge.id;
    if (decline) {
      intent.status = 'requires_payment_method';
      intent.last_payment_error = {
        type: 'card_error',
        code: decline.code,
        ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
        message: decline.message,
        charge: charge.id,
        payment_method: this.paymentMethods.get(method)?.method,
      } as Stripe.PaymentIntent.LastPaymentError;
      this.events.emit('charge.failed', charge);
      this.events.emit('payment_intent.payment_failed', intent);
      return cardError(decline.message, decline.code, decline.declineCode, structuredClone(intent));
    }
    intent.status = 'requires_capture';
    intent.amount_capturable = intent.amount;
    this.events.emit('charge.succeeded', charge);
    this.events.emit('payment_intent.amount_capturable_updated', intent);
    if (intent.capture_method !== 'manual') this.capture(intent.id, undefined);
    return null;
  }

  private newCharge(
    intent: Stripe.PaymentIntent,
    card: TestCard,
    decline: { code: string; declineCode?: string; message: string } | null,
  ): Stripe.Charge {
    const base = fixture('charge');
    const method = this.paymentMethods.get(intent.payment_method as string)?.method;
    const created = this.nowSeconds();
    const baseCard = base.payment_method_details?.card;
    const charge: Stripe.Charge = {
      ...base,
      id: newId('ch'),
      amount: intent.amount,
      amount_captured: 0,
      amount_refunded: 0,
      balance_transaction: null,
      billing_details: method?.billing_details ?? base.billing_details,
      calculated_statement_descriptor: 'RAMPART',
      captured: false,
      created,
      currency: intent.currency,
      description: intent.description,
      disputed: false,
      failure_code: decline ? decline.code : null,
      failure_message: decline ? decline.message : null,
      metadata: { ...intent.metadata },
      outcome: {
        ...base.outcome,
        network_status: decline ? 'declined_by_network' : 'approved_by_network',
        reason: decline ? (decline.declineCode ?? decline.code) : null,
        seller_message: decline
          ? 'The bank did not return any further details with this decline.'
          : 'Payment complete.',
        type: decline ? 'issuer_declined' : 'authorized',
      } as Stripe.Charge.Outcome,
      paid: !decline,
      payment_intent: intent.id,
      payment_method: intent.payment_method as string,
      payment_method_details: {
        ...base.payment_method_details,
        type: 'card',
        card: baseCard
          ? {
              ...baseCard,
              brand: card.brand,
              funding: card.funding,
              last4: card.number.slice(-4),
              network: card.brand,
              wallet: null,
              capture_before: created + 7 * DAY,
            }
          : undefined,
      } as Stripe.Charge.PaymentMethodDetails,
      receipt_url: null,
      refunded: false,
      refunds: { object: 'list', data: [], has_more: false, url: '' },
      source: null,
      status: decline ? 'failed' : 'succeeded',
      transfer_data: null,
    };
    if (charge.refunds) charge.refunds.url = `/v1/charges/${charge.id}/refunds`;
    this.charges.set(charge.id, charge);
    return charge;
  }

  /** The emulator's 3-D Secure page: the buyer approves or fails the challenge. */
  completeThreeDSecure(id: string, result: 'approve' | 'decline'): Stripe.PaymentIntent {
    const intent = this.intent(id);
    if (intent.status !== 'requires_action') return intent;
    const record = this.intentRecords.get(id) as IntentRecord;
    if (result === 'approve') {
      record.authenticated = true;
      this.authorizeCard(intent, record.card);
      return intent;
    }
    intent.status = 'requires_payment_method';
    intent.next_action = null;
    intent.last_payment_error = {
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      message:
        'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
      payment_method: this.paymentMethods.get(intent.payment_method as string)?.method,
    } as Stripe.PaymentIntent.LastPaymentError;
    this.events.emit('payment_intent.payment_failed', intent);
    return intent;
  }

  capture(id: string, amountToCapture: number | undefined): Stripe.PaymentIntent {
    const intent = this.intent(id);
    if (intent.status !== 'requires_capture') {
      throw invalidRequest(
        `This PaymentIntent could not be captured because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
        { code: 'payment_intent_unexpected_state', paymentIntent: structuredClone(intent) },
      );
    }
    const amount = amountToCapture ?? intent.amount_capturable;
    if (amount > intent.amount_capturable) {
      throw invalidRequest(
        `The amount_to_capture (${amount}) must be less than or equal to the amount_capturable (${intent.amount_capturable}).`,
        { code: 'amount_too_large', param: 'amount_to_capture', paymentIntent: structuredClone(intent) },
      );
    }
    const charge = this.charges.get(intent.latest_charge as string) as Stripe.Charge;
    charge.captured = true;
    charge.amount_captured = amount;
    const bt = this.addBalanceTransaction({
      amount,
      fee: processingFee(amount),
      currency: intent.currency,
      type: 'charge',
      reportingCategory: 'charge',
      source: charge.id,
      description: intent.description ?? 'Payment',
      feeDescription: 'Stripe processing fees',
    });
    charge.balance_transaction = bt.id;
    intent.status = 'succeeded';
    intent.amount_received = amount;
    intent.amount_capturable = 0;
    this.events.emit('charge.captured', charge);
    this.events.emit('payment_intent.succeeded', intent);
    const record = this.intentRecords.get(id);
    if (record?.card.behaviour.kind === 'dispute') this.openDispute(id, record.card.behaviour.reason);
    return intent;
  }

  cancel(id: string, reason: Stripe.PaymentIntent.CancellationReason | undefined): Stripe.PaymentIntent {
    const intent = this.intent(id);
    const cancelable = [
      'requires_payment_method',
      'requires_capture',
      'requires_confirmation',
      'requires_action',
      'processing',
    ];
    if (!cancelable.includes(intent.status)) {
      throw invalidRequest(
        `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancelable.join(', ')}.`,
        { code: 'payment_intent_unexpected_state', paymentIntent: structuredClone(intent) },
      );
    }
    const charge = intent.latest_charge ? this.charges.get(intent.latest_charge as string) : undefined;
    if (charge && charge.status === 'succeeded' && !charge.captured) {
      // Stripe releases an uncaptured hold by marking its charge refunded in full.
      charge.refunded = true;
      charge.amount_refunded = charge.amount;
    }
    intent.status = 'canceled';
    intent.canceled_at = this.nowSeconds();
    intent.cancellation_reason = reason ?? null;
    intent.amount_capturable = 0;
    intent.next_action = null;
    this.events.emit('payment_intent.canceled', intent);
    return intent;
  }

  // ---- Refunds ----

  createRefund(params: {
    paymentIntent?: string;
    charge?: string;
    amount?: number;
    metadata: Stripe.Metadata;
    reason?: string;
  }): Stripe.Refund {
    if (params.paymentIntent && params.charge) {
      throw invalidRequest('You cannot pass both `charge` and `payment_intent`.', {
        code: 'parameters_exclusive',
        param: 'payment_intent',
      });
    }
    if (!params.paymentIntent && !params.charge) {
      throw invalidRequest(
        'One of the following params should be provided for this request: payment_intent or charge.',
        { code: 'parameter_missing' },
      );
    }
    let charge: Stripe.Charge | undefined;
    if (params.paymentIntent) {
      const intent = this.intent(params.paymentIntent, 'payment_intent');
      charge = intent.status === 'succeeded' ? this.charges.get(intent.latest_charge as string) : undefined;
      if (!charge) {
        throw invalidRequest(
          `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
          {
            code: 'charge_not_refundable',
            param: 'payment_intent',
          },
        );
      }
    } else {
      charge = this.charges.get(params.charge as string);
      if (!charge)
        throw invalidRequest(`No such charge: '${params.charge}'`, {
          code: 'resource_missing',
          param: 'charge',
          status: 404,
        });
    }
    if (charge.disputed && this.disputeOf(charge.id)?.status !== 'won') {
      throw invalidRequest(`Charge ${charge.id} has been charged back; cannot issue a refund.`, {
        code: 'charge_disputed',
      });
    }
    const remaining = charge.amount_captured - charge.amount_refunded;
    if (remaining <= 0)
      throw invalidRequest(`Charge ${charge.id} has already been refunded.`, {
        code: 'charge_already_refunded',
      });
    const amount = params.amount ?? remaining;
    if (amount > remaining) {
      throw invalidRequest(
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`,
        { code: 'amount_too_large', param: 'amount' },
      );
    }
    const base = fixture('refund');
    const refund: Stripe.Refund = {
      ...base,
      id: newId('re'),
      amount,
      charge: charge.id,
      created: this.nowSeconds(),
      currency: charge.currency,
      metadata: params.metadata,
      payment_intent: typeof charge.payment_intent === 'string' ? charge.payment_intent : null,
      reason: (params.reason ?? null) as Stripe.Refund.Reason | null,
      status: 'succeeded',
    };
    const bt = this.addBalanceTransaction({
      amount: -amount,
      fee: 0,
      currency: charge.currency,
      type: 'refund',
      reportingCategory: 'refund',
      source: refund.id,
      description: 'REFUND FOR PAYMENT',
    });
    refund.balance_transaction = bt.id;
    this.refunds.set(refund.id, refund);
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount_captured;
    if (charge.refunds) {
      charge.refunds.data.unshift(refund);
    }
    this.events.emit('charge.refunded', charge);
    this.events.emit('refund.created', refund);
    return refund;
  }

  // ---- Disputes ----

  private disputeOf(chargeId: string): Stripe.Dispute | undefined {
    return [...this.disputes.values()].find((d) => d.charge === chargeId);
  }

  /** The buyer's bank disputes a captured payment: the amount and Stripe's dispute fee leave the balance. */
  openDispute(intentId: string, reason = 'fraudulent'): Stripe.Dispute {
    const intent = this.intent(intentId);
    const charge = intent.latest_charge ? this.charges.get(intent.latest_charge as string) : undefined;
    if (!charge?.captured) throw new Error(`emulator: ${intentId} has no captured charge to dispute`);
    if (this.disputeOf(charge.id)) throw new Error(`emulator: ${charge.id} is already disputed`);
    const base = fixture('dispute');
    const dispute: Stripe.Dispute = {
      ...base,
      id: newId('dp'),
      amount: charge.amount_captured,
      balance_transactions: [],
      charge: charge.id,
      created: this.nowSeconds(),
      currency: charge.currency,
      is_charge_refundable: false,
      metadata: {},
      payment_intent: intent.id,
      reason,
      status: 'needs_response',
    };
    const bt = this.addBalanceTransaction({
      amount: -dispute.amount,
      fee: DISPUTE_FEE,
      currency: dispute.currency,
      type: 'adjustment',
      reportingCategory: 'dispute',
      source: dispute.id,
      description: `Chargeback withdrawal for ${charge.id}`,
      feeDescription: 'Dispute fee',
    });
    dispute.balance_transactions.push(bt);
    charge.disputed = true;
    this.disputes.set(dispute.id, dispute);
    this.events.emit('charge.dispute.created', dispute);
    return dispute;
  }

  /** The bank decides: won gives the disputed amount back (the fee stays with Stripe), lost keeps it gone. */
  closeDispute(disputeId: string, outcome: 'won' | 'lost'): Stripe.Dispute {
    const dispute = this.disputes.get(disputeId);
    if (!dispute) throw new Error(`emulator: no dispute ${disputeId}`);
    if (dispute.status === 'won' || dispute.status === 'lost')
      throw new Error(`emulator: ${disputeId} is already ${dispute.status}`);
    dispute.status = outcome;
    if (outcome === 'won') {
      const bt = this.addBalanceTransaction({
        amount: dispute.amount,
        fee: 0,
        currency: dispute.currency,
        type: 'adjustment',
        reportingCategory: 'dispute_reversal',
        source: dispute.id,
        description: `Chargeback reversal for ${dispute.charge as string}`,
      });
      dispute.balance_transactions.push(bt);
    }
    this.events.emit('charge.dispute.closed', dispute);
    return dispute;
  }

  // ---- Balance and payouts ----

  private addBalanceTransaction(params: {
    amount: number;
    fee: number;
    currency: string;
    type: Stripe.BalanceTransaction.Type;
    reportingCategory: string;
    source: string;
    description: string;
    feeDescription?: string;
  }): Stripe.BalanceTransaction {
    const base = fixture('balance_transaction');
    const created = this.nowSeconds();
    const bt: Stripe.BalanceTransaction = {
      ...base,
      id: newId('txn'),
      amount: params.amount,
      available_on: created,
      created,
      currency: params.currency,
      description: params.description,
      exchange_rate: null,
      fee: params.fee,
      fee_details:
        params.fee === 0
          ? []
          : [
              {
                amount: params.fee,
                application: null,
                currency: params.currency,
                description: params.feeDescription ?? 'Stripe fee',
                type: 'stripe_fee',
              },
            ],
      net: params.amount - params.fee,
      reporting_category: params.reportingCategory,
      source: params.source,
      status: 'available',
      type: params.type,
    };
    this.balanceTransactions.push(bt);
    return bt;
  }

  /** The available balance per currency: the sum of every transaction's net. */
  balance(): Record<string, number> {
    const totals: Record<string, number> = {};
    for (const bt of this.balanceTransactions) totals[bt.currency] = (totals[bt.currency] ?? 0) + bt.net;
    return totals;
  }

  /** Pays the whole available balance of `currency` out to the operator's bank. */
  createPayout(currency = 'usd'): Stripe.Payout {
    const available = this.balance()[currency] ?? 0;
    if (available <= 0) throw new Error(`emulator: no available ${currency} balance to pay out`);
    const base = fixture('payout');
    const created = this.nowSeconds();
    const id = newId('po');
    const bt = this.addBalanceTransaction({
      amount: -available,
      fee: 0,
      currency,
      type: 'payout',
      reportingCategory: 'payout',
      source: id,
      description: 'STRIPE PAYOUT',
    });
    const payout: Stripe.Payout = {
      ...base,
      id,
      amount: available,
      arrival_date: created + 2 * DAY,
      balance_transaction: bt.id,
      created,
      currency,
      status: 'paid',
      trace_id: null,
    };
    this.payouts.set(id, payout);
    this.events.emit('payout.paid', payout);
    return payout;
  }

  /** The object a balance transaction's `source` names, for `expand[]=data.source`. */
  sourceObject(id: string): Stripe.BalanceTransactionSource | string {
    return (
      this.charges.get(id) ?? this.refunds.get(id) ?? this.disputes.get(id) ?? this.payouts.get(id) ?? id
    );
  }
}

function cardErrorWithoutIntent(message: string, code: string, param: string): StripeEmulatorError {
  return new StripeEmulatorError({
    status: 402,
    body: { error: { type: 'card_error', code, message, param } },
  });
}
