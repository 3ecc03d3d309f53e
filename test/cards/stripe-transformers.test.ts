import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { processorEventOf } from '../../src/cards/stripe/events.ts';
import {
  AmountNotRepresentableError,
  fromMinorUnits,
  toMinorUnits,
} from '../../src/cards/stripe/minor-units.ts';
import {
  authorizeParams,
  captureParams,
  createdRange,
  paymentMethodParams,
  refundParams,
} from '../../src/cards/stripe/requests.ts';
import {
  balanceTransaction,
  declineOf,
  paymentSnapshot,
  payout,
  refundSnapshot,
} from '../../src/cards/stripe/responses.ts';
import { Money } from '../../src/platform/money.ts';
import { fixture } from '../helpers/stripe-emulator/objects.ts';

// The pure transformers against Stripe's documented test-mode semantics, on Stripe's own
// published example objects (fixtures3.json, read at test time) with the values each case sets.

function intent(overlay: Partial<Stripe.PaymentIntent>): Stripe.PaymentIntent {
  return {
    ...fixture('payment_intent'),
    last_payment_error: null,
    next_action: null,
    latest_charge: null,
    ...overlay,
  };
}

const op = {
  idempotencyKey: 'rampart-WO_1-authorize-1',
  orderId: 'WO_1',
  token: 'pm_card_visa_debit',
  amount: new Money('104.37'),
  currency: 'USD',
  returnUrl: 'https://rampart.example/checkout/return',
  force3ds: false,
};

describe('minor units', () => {
  it('converts exactly with Stripe exponents (two, zero and three decimals)', () => {
    expect(toMinorUnits(new Money('104.37'), 'USD')).toBe(10437);
    expect(toMinorUnits(new Money('0.1').plus('0.2'), 'EUR')).toBe(30);
    expect(toMinorUnits(new Money('500'), 'JPY')).toBe(500);
    expect(toMinorUnits(new Money('1.234'), 'KWD')).toBe(1234);
    expect(fromMinorUnits(-1500, 'usd').toFixed()).toBe('-15');
    expect(fromMinorUnits(10437, 'usd').toFixed(2)).toBe('104.37');
  });

  it('refuses an amount finer than the currency rather than rounding it', () => {
    expect(() => toMinorUnits(new Money('10.005'), 'USD')).toThrow(AmountNotRepresentableError);
    expect(() => toMinorUnits(new Money('10.5'), 'JPY')).toThrow(AmountNotRepresentableError);
  });
});

describe('request builders', () => {
  it('authorizes with manual capture, confirm, return_url, order metadata and no forced 3-D Secure', () => {
    const params = authorizeParams(op);
    expect(params).toMatchObject({
      amount: 10437,
      currency: 'usd',
      payment_method: 'pm_card_visa_debit',
      capture_method: 'manual',
      confirm: true,
      return_url: op.returnUrl,
      metadata: { order_id: 'WO_1' },
    });
    expect(params.payment_method_options).toBeUndefined();
  });

  it("asks for 3-D Secure with request_three_d_secure 'any' when forced", () => {
    expect(authorizeParams({ ...op, force3ds: true }).payment_method_options).toEqual({
      card: { request_three_d_secure: 'any' },
    });
  });

  it('builds the PaymentMethod, capture and refund parameters', () => {
    const pm = paymentMethodParams(
      { pan: '4000056655665556', expMonth: 3, expYear: 2031, cvv: '314' },
      {
        name: 'A B',
        email: 'a@b.c',
        phone: '+1555',
        street1: '1 St',
        city: 'C',
        state: 'S',
        postalCode: '12345',
        country: 'US',
      },
    );
    expect(pm).toMatchObject({
      type: 'card',
      card: { number: '4000056655665556', exp_month: 3, exp_year: 2031, cvc: '314' },
    });
    expect(pm.billing_details?.address).toMatchObject({ postal_code: '12345', country: 'US' });
    expect(
      captureParams({ idempotencyKey: 'k', reference: 'pi_1', amount: new Money('50'), currency: 'USD' }),
    ).toMatchObject({
      amount_to_capture: 5000,
    });
    expect(
      refundParams({
        idempotencyKey: 'k',
        reference: 'pi_1',
        amount: new Money('0.5'),
        currency: 'USD',
        orderId: 'WO_9',
      }),
    ).toEqual({ payment_intent: 'pi_1', amount: 50, metadata: { order_id: 'WO_9' } });
  });

  it('widens a millisecond range to whole seconds', () => {
    expect(createdRange({ fromMs: 1_700_000_000_500, toMs: 1_700_000_100_001 })).toEqual({
      gte: 1_700_000_000,
      lt: 1_700_000_101,
    });
  });
});

describe('status map', () => {
  it('requires_capture is AUTHORIZED, with the hold expiry from the expanded charge', () => {
    const charge = fixture('charge');
    const card = charge.payment_method_details?.card;
    if (!card || !charge.payment_method_details) throw new Error('fixture changed');
    charge.payment_method_details.card = { ...card, capture_before: 1_800_000_000 };
    const snapshot = paymentSnapshot(
      intent({ status: 'requires_capture', amount: 2500, amount_capturable: 2500, latest_charge: charge }),
    );
    expect(snapshot).toMatchObject({
      status: 'AUTHORIZED',
      currency: 'USD',
      authorizationExpiresAtMs: 1_800_000_000_000,
    });
    expect(snapshot.amount.toFixed(2)).toBe('25.00');
  });

  it('requires_action with a redirect is CHALLENGE with the URL; without one it stays PENDING', () => {
    const url = 'https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1';
    const challenge = paymentSnapshot(
      intent({
        status: 'requires_action',
        next_action: { type: 'redirect_to_url', redirect_to_url: { url, return_url: op.returnUrl } },
      }),
    );
    expect(challenge).toMatchObject({ status: 'CHALLENGE', challengeUrl: url });
    expect(
      paymentSnapshot(intent({ status: 'requires_action', next_action: { type: 'use_stripe_sdk' } })).status,
    ).toBe('PENDING');
  });

  it('succeeded is CAPTURED with the amount received; canceled is VOIDED', () => {
    const captured = paymentSnapshot(intent({ status: 'succeeded', amount: 5000, amount_received: 3000 }));
    expect(captured.status).toBe('CAPTURED');
    expect(captured.capturedAmount.toFixed(2)).toBe('30.00');
    expect(paymentSnapshot(intent({ status: 'canceled' })).status).toBe('VOIDED');
  });

  it('requires_payment_method is DECLINED only after a failed attempt', () => {
    expect(paymentSnapshot(intent({ status: 'requires_payment_method' })).status).toBe('PENDING');
    const declined = paymentSnapshot(
      intent({
        status: 'requires_payment_method',
        last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' },
      }),
    );
    expect(declined).toMatchObject({
      status: 'DECLINED',
      decline: { reason: 'INSUFFICIENT_FUNDS', processorCode: 'insufficient_funds' },
    });
  });

  it('processing and statuses it does not know are PENDING', () => {
    expect(paymentSnapshot(intent({ status: 'processing' })).status).toBe('PENDING');
    expect(paymentSnapshot(intent({ status: 'requires_confirmation' })).status).toBe('PENDING');
    expect(
      paymentSnapshot(intent({ status: 'some_future_status' as Stripe.PaymentIntent.Status })).status,
    ).toBe('PENDING');
  });

  it.each([
    // Stripe's documented test cards and the codes they decline with.
    ['card_declined', 'generic_decline', 'DO_NOT_HONOR', 'generic_decline'], // 4000000000000002
    ['card_declined', 'insufficient_funds', 'INSUFFICIENT_FUNDS', 'insufficient_funds'], // 4000000000009995
    ['card_declined', 'lost_card', 'DO_NOT_HONOR', 'lost_card'], // 4000000000009987
    ['incorrect_zip', undefined, 'AVS_ZIP', 'incorrect_zip'], // 4000000000000036 with the ZIP rule
    ['expired_card', undefined, 'DO_NOT_HONOR', 'expired_card'], // 4000000000000069
    ['card_declined', 'authentication_required', 'AUTHENTICATION', 'authentication_required'],
    [
      'payment_intent_authentication_failure',
      undefined,
      'AUTHENTICATION',
      'payment_intent_authentication_failure',
    ],
  ])('declines %s / %s as %s', (code, declineCode, reason, processorCode) => {
    expect(declineOf(code, declineCode)).toEqual({ reason, processorCode });
  });
});

describe('refunds, balance transactions and payouts', () => {
  it('maps a refund and its status', () => {
    const refund = refundSnapshot({
      ...fixture('refund'),
      amount: 1000,
      payment_intent: 'pi_9',
      status: 'pending',
    });
    expect(refund).toMatchObject({ paymentReference: 'pi_9', status: 'PENDING', currency: 'USD' });
    expect(refund.amount.toFixed(2)).toBe('10.00');
    expect(refundSnapshot({ ...fixture('refund'), status: 'failed' }).status).toBe('FAILED');
    expect(refundSnapshot(fixture('refund')).status).toBe('SUCCEEDED');
  });

  it('types balance transactions: charge with its fee and order, dispute, dispute reversal, payout', () => {
    const charge = { ...fixture('charge'), metadata: { order_id: 'WO_7' }, payment_intent: 'pi_7' };
    const bt = balanceTransaction({
      ...fixture('balance_transaction'),
      amount: 10000,
      fee: 320,
      source: charge,
    });
    expect(bt).toMatchObject({ type: 'charge', orderId: 'WO_7', paymentReference: 'pi_7' });
    expect(bt.fee.toFixed(2)).toBe('3.20');
    const dispute = balanceTransaction({
      ...fixture('balance_transaction'),
      type: 'adjustment',
      reporting_category: 'dispute',
      amount: -10000,
      fee: 1500,
    });
    expect(dispute.type).toBe('dispute');
    expect(dispute.amount.toFixed(2)).toBe('-100.00');
    expect(
      balanceTransaction({
        ...fixture('balance_transaction'),
        type: 'adjustment',
        reporting_category: 'dispute_reversal',
      }).type,
    ).toBe('dispute');
    expect(
      balanceTransaction({
        ...fixture('balance_transaction'),
        type: 'adjustment',
        reporting_category: 'other_adjustment',
      }).type,
    ).toBe('adjustment');
    const paid = balanceTransaction({ ...fixture('balance_transaction'), type: 'payout', source: 'po_1' });
    expect(paid).toMatchObject({ type: 'payout', payoutReference: 'po_1' });
  });

  it('maps payout statuses', () => {
    expect(payout({ ...fixture('payout'), status: 'paid' }).status).toBe('PAID');
    expect(payout(fixture('payout')).status).toBe('PENDING'); // in_transit
    expect(payout({ ...fixture('payout'), status: 'failed' }).status).toBe('FAILED');
  });
});

describe('events', () => {
  function event(type: string, object: unknown): Stripe.Event {
    return { ...fixture('event'), id: 'evt_1', type, data: { object } } as Stripe.Event;
  }

  it('turns PaymentIntent events into payment.updated with the order id from metadata', () => {
    const pi = intent({ status: 'requires_capture', metadata: { order_id: 'WO_3' } });
    for (const type of [
      'payment_intent.amount_capturable_updated',
      'payment_intent.succeeded',
      'payment_intent.payment_failed',
      'payment_intent.canceled',
      'payment_intent.requires_action',
    ]) {
      expect(processorEventOf(event(type, pi))).toMatchObject({
        eventId: 'evt_1',
        kind: 'payment.updated',
        orderId: 'WO_3',
      });
    }
  });

  it('turns refund events into refund.updated', () => {
    const refund = { ...fixture('refund'), metadata: { order_id: 'WO_4' }, payment_intent: 'pi_4' };
    expect(processorEventOf(event('refund.updated', refund))).toMatchObject({
      kind: 'refund.updated',
      orderId: 'WO_4',
    });
    expect(processorEventOf(event('charge.refund.updated', refund))).toMatchObject({
      kind: 'refund.updated',
    });
    const charge = { ...fixture('charge'), payment_intent: 'pi_4', metadata: { order_id: 'WO_4' } };
    charge.refunds = { object: 'list', data: [refund], has_more: false, url: '' };
    expect(processorEventOf(event('charge.refunded', charge))).toMatchObject({
      kind: 'refund.updated',
      orderId: 'WO_4',
      refund: { paymentReference: 'pi_4' },
    });
  });

  it('turns disputes into opened, won and lost, ignoring inquiries; the order is found by the payment reference', () => {
    const dispute = {
      ...fixture('dispute'),
      status: 'needs_response',
      payment_intent: 'pi_5',
    } as Stripe.Dispute;
    expect(processorEventOf(event('charge.dispute.created', dispute))).toMatchObject({
      kind: 'dispute.opened',
      orderId: null,
      dispute: { paymentReference: 'pi_5', reason: 'general' },
    });
    expect(processorEventOf(event('charge.dispute.closed', { ...dispute, status: 'won' }))).toMatchObject({
      kind: 'dispute.won',
    });
    expect(processorEventOf(event('charge.dispute.closed', { ...dispute, status: 'lost' }))).toMatchObject({
      kind: 'dispute.lost',
    });
    expect(processorEventOf(event('charge.dispute.created', fixture('dispute')))).toBeNull(); // warning_needs_response
    expect(
      processorEventOf(event('charge.dispute.closed', { ...dispute, status: 'warning_closed' })),
    ).toBeNull();
  });

  it('ignores event types Rampart has no use for', () => {
    expect(processorEventOf(fixture('event'))).toBeNull(); // plan.created
  });
});
