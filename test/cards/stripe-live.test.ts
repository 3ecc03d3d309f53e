import { describe, expect, it } from 'vitest';
import { paymentKey } from '../../src/cards/connector.ts';
import { stripeConnector } from '../../src/cards/stripe/connector.ts';
import { Money } from '../../src/platform/money.ts';
import { STRIPE_TEST_CARDS } from '../helpers/stripe-emulator/cards.ts';
import {
  STRIPE_LIVE_ENABLED,
  STRIPE_RAW_CARDS_ENABLED,
  stripeLiveOptions,
  stripeLiveTitle,
} from '../helpers/stripe-live.ts';

// The connector's lifecycle against Stripe's real test mode: the contract the emulator claims to
// keep, checked against Stripe itself whenever a test-mode key is provided.

const billing = {
  name: 'Rampart Live Test',
  email: 'live-test@example.com',
  phone: '+15555550123',
  street1: '510 Townsend St',
  city: 'San Francisco',
  state: 'CA',
  postalCode: '94103',
  country: 'US',
};
const returnUrl = 'https://rampart.example/checkout/return';

function orderId(label: string): string {
  return `WO_LIVE${label}${Date.now()}${Math.floor(Math.random() * 1e6)}`;
}

describe.skipIf(!STRIPE_LIVE_ENABLED)(stripeLiveTitle('Stripe connector lifecycle'), () => {
  const connector = STRIPE_LIVE_ENABLED ? stripeConnector(stripeLiveOptions()) : undefined;
  const live = () => {
    if (!connector) throw new Error('live suite ran without a key');
    return connector;
  };

  it.skipIf(!STRIPE_RAW_CARDS_ENABLED)(
    'tokenizes a raw test card number (needs raw card data access: STRIPE_TEST_RAW_CARD_DATA=1)',
    async () => {
      const token = await live().tokenize(
        { pan: STRIPE_TEST_CARDS.success, expMonth: 12, expYear: 2034, cvv: '123' },
        billing,
      );
      expect(token.ok && token.value.token).toMatch(/^pm_/);
    },
  );

  it('authorizes, captures part, refunds part', async () => {
    const id = orderId('CAP');
    const authorized = await live().authorize({
      idempotencyKey: paymentKey(id, 'authorize'),
      orderId: id,
      token: 'pm_card_visa_debit',
      amount: new Money('20.00'),
      currency: 'USD',
      returnUrl,
      force3ds: false,
    });
    expect(authorized.ok && authorized.value.status).toBe('AUTHORIZED');
    if (!authorized.ok) return;
    expect(authorized.value.authorizationExpiresAtMs).toBeGreaterThan(Date.now());
    const reference = authorized.value.reference;
    const replay = await live().authorize({
      idempotencyKey: paymentKey(id, 'authorize'),
      orderId: id,
      token: 'pm_card_visa_debit',
      amount: new Money('20.00'),
      currency: 'USD',
      returnUrl,
      force3ds: false,
    });
    expect(replay.ok && replay.value.reference).toBe(reference);
    const captured = await live().capture({
      idempotencyKey: paymentKey(id, 'capture'),
      reference,
      amount: new Money('15.00'),
      currency: 'USD',
    });
    expect(captured.ok && captured.value.status).toBe('CAPTURED');
    expect(captured.ok && captured.value.capturedAmount.toFixed(2)).toBe('15.00');
    const again = await live().capture({
      idempotencyKey: `${paymentKey(id, 'capture')}-again`,
      reference,
      amount: new Money('15.00'),
      currency: 'USD',
    });
    expect(again.ok && again.value.status).toBe('CAPTURED');
    const refunded = await live().refund({
      idempotencyKey: paymentKey(id, 'refund'),
      reference,
      amount: new Money('5.00'),
      currency: 'USD',
      orderId: id,
    });
    expect(refunded.ok && refunded.value.status).toBe('SUCCEEDED');
    const over = await live().refund({
      idempotencyKey: paymentKey(id, 'refund', 2),
      reference,
      amount: new Money('10.01'),
      currency: 'USD',
      orderId: id,
    });
    expect(over).toMatchObject({ ok: false, unconfirmed: false });
  });

  it('authorizes and voids', async () => {
    const id = orderId('VOID');
    const authorized = await live().authorize({
      idempotencyKey: paymentKey(id, 'authorize'),
      orderId: id,
      token: 'pm_card_mastercard_debit',
      amount: new Money('7.50'),
      currency: 'USD',
      returnUrl,
      force3ds: false,
    });
    if (!authorized.ok) throw new Error(JSON.stringify(authorized));
    const voided = await live().void({
      idempotencyKey: paymentKey(id, 'void'),
      reference: authorized.value.reference,
    });
    expect(voided.ok && voided.value.status).toBe('VOIDED');
    const again = await live().void({
      idempotencyKey: `${paymentKey(id, 'void')}-again`,
      reference: authorized.value.reference,
    });
    expect(again.ok && again.value.status).toBe('VOIDED');
  });

  it('answers CHALLENGE with a redirect for the 3-D Secure card', async () => {
    const id = orderId('3DS');
    const result = await live().authorize({
      idempotencyKey: paymentKey(id, 'authorize'),
      orderId: id,
      token: 'pm_card_threeDSecure2Required',
      amount: new Money('11.00'),
      currency: 'USD',
      returnUrl,
      force3ds: false,
    });
    expect(result.ok && result.value.status).toBe('CHALLENGE');
    expect(result.ok && result.value.challengeUrl).toMatch(/^https:\/\//);
  });

  it.each([
    ['pm_card_visa_chargeDeclined', 'DO_NOT_HONOR'],
    ['pm_card_visa_chargeDeclinedInsufficientFunds', 'INSUFFICIENT_FUNDS'],
  ])('declines %s as %s', async (token, reason) => {
    const id = orderId('DECL');
    const result = await live().authorize({
      idempotencyKey: paymentKey(id, 'authorize'),
      orderId: id,
      token,
      amount: new Money('5.00'),
      currency: 'USD',
      returnUrl,
      force3ds: false,
    });
    expect(result.ok && result.value.status).toBe('DECLINED');
    expect(result.ok && result.value.decline?.reason).toBe(reason);
  });
});
