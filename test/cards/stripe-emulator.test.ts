import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StripeEmulator, startStripeEmulator } from '../helpers/stripe-emulator/index.ts';

// The emulator's own validation: a malformed call fails as Stripe fails it (status, error type,
// code, param), so a connector bug shows up here as it would against Stripe.

let emulator: StripeEmulator;

beforeAll(async () => {
  emulator = await startStripeEmulator({ webhookSecret: 'whsec_x' });
});
afterAll(async () => {
  await emulator.close();
});

async function call(
  method: string,
  path: string,
  form: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const body = new URLSearchParams(form).toString();
  const response = await fetch(`${emulator.url}${path}${method === 'GET' && body ? `?${body}` : ''}`, {
    method,
    headers: {
      authorization: `Bearer ${emulator.secretKey}`,
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    ...(method === 'GET' ? {} : { body }),
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as { error?: Record<string, unknown> } & Record<string, unknown>,
  };
}

async function authorizedIntent(amount = '1000') {
  const created = await call('POST', '/v1/payment_intents', {
    amount,
    currency: 'usd',
    payment_method: 'pm_card_visa_debit',
    capture_method: 'manual',
    confirm: 'true',
    return_url: 'https://example.com/r',
  });
  expect(created.json.status).toBe('requires_capture');
  return created.json.id as string;
}

describe('Stripe emulator validation', () => {
  it('refuses a request without an API key or with a wrong one (401)', async () => {
    const none = await fetch(`${emulator.url}/v1/payment_intents/pi_x`);
    expect(none.status).toBe(401);
    const wrong = await call(
      'GET',
      '/v1/payment_intents/pi_x',
      {},
      { authorization: 'Bearer sk_test_wrong' },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.json.error?.type).toBe('invalid_request_error');
  });

  it('answers parameter_missing for a PaymentIntent without an amount', async () => {
    const r = await call('POST', '/v1/payment_intents', { currency: 'usd' });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_missing',
      param: 'amount',
    });
  });

  it('answers parameter_unknown for a parameter Stripe does not have', async () => {
    const r = await call('POST', '/v1/payment_intents', {
      amount: '100',
      currency: 'usd',
      captureMethod: 'manual',
    });
    expect(r.json.error).toMatchObject({ code: 'parameter_unknown', param: 'captureMethod' });
    const nested = await call('POST', '/v1/payment_methods', {
      type: 'card',
      'card[number]': '4242424242424242',
      'card[exp_month]': '12',
      'card[exp_year]': '2030',
      'card[cvv]': '123',
    });
    expect(nested.json.error).toMatchObject({ code: 'parameter_unknown', param: 'card[cvv]' });
  });

  it('answers parameter_invalid_integer for a decimal or non-positive amount', async () => {
    const decimal = await call('POST', '/v1/payment_intents', { amount: '10.50', currency: 'usd' });
    expect(decimal.json.error).toMatchObject({ code: 'parameter_invalid_integer', param: 'amount' });
    const zero = await call('POST', '/v1/payment_intents', { amount: '0', currency: 'usd' });
    expect(zero.json.error).toMatchObject({ code: 'parameter_invalid_integer', param: 'amount' });
    const small = await call('POST', '/v1/payment_intents', { amount: '10', currency: 'usd' });
    expect(small.json.error).toMatchObject({ code: 'amount_too_small', param: 'amount' });
  });

  it('refuses an unknown PaymentMethod as resource_missing', async () => {
    const r = await call('POST', '/v1/payment_intents', {
      amount: '100',
      currency: 'usd',
      payment_method: 'pm_nope',
      confirm: 'true',
    });
    expect(r.json.error).toMatchObject({ code: 'resource_missing', param: 'payment_method' });
  });

  it('refuses an invalid card number as a card error when the PaymentMethod is made', async () => {
    const r = await call('POST', '/v1/payment_methods', {
      type: 'card',
      'card[number]': '4242424242424241',
      'card[exp_month]': '12',
      'card[exp_year]': '2030',
    });
    expect(r.status).toBe(402);
    expect(r.json.error).toMatchObject({ type: 'card_error', code: 'incorrect_number' });
  });

  it('captures only in requires_capture, and no more than amount_capturable', async () => {
    const id = await authorizedIntent('1000');
    const over = await call('POST', `/v1/payment_intents/${id}/capture`, { amount_to_capture: '1001' });
    expect(over.status).toBe(400);
    expect(over.json.error).toMatchObject({ code: 'amount_too_large', param: 'amount_to_capture' });
    expect((await call('POST', `/v1/payment_intents/${id}/capture`)).json.status).toBe('succeeded');
    const twice = await call('POST', `/v1/payment_intents/${id}/capture`);
    expect(twice.json.error).toMatchObject({ code: 'payment_intent_unexpected_state' });
    expect(twice.json.error?.payment_intent).toMatchObject({ status: 'succeeded' });
  });

  it('refuses a refund of an uncaptured payment and one over the remaining amount', async () => {
    const id = await authorizedIntent('1000');
    const uncaptured = await call('POST', '/v1/refunds', { payment_intent: id });
    expect(uncaptured.json.error).toMatchObject({ code: 'charge_not_refundable', param: 'payment_intent' });
    await call('POST', `/v1/payment_intents/${id}/capture`, { amount_to_capture: '800' });
    expect((await call('POST', '/v1/refunds', { payment_intent: id, amount: '500' })).json.status).toBe(
      'succeeded',
    );
    const over = await call('POST', '/v1/refunds', { payment_intent: id, amount: '301' });
    expect(over.json.error).toMatchObject({ code: 'amount_too_large', param: 'amount' });
    expect((await call('POST', '/v1/refunds', { payment_intent: id })).json.amount).toBe(300);
    const done = await call('POST', '/v1/refunds', { payment_intent: id });
    expect(done.json.error).toMatchObject({ code: 'charge_already_refunded' });
  });

  it('replays an idempotent request with Idempotent-Replayed and refuses the key with other parameters', async () => {
    const form = {
      amount: '700',
      currency: 'usd',
      payment_method: 'pm_card_visa_debit',
      capture_method: 'manual',
      confirm: 'true',
    };
    const key = { 'idempotency-key': `key-${Date.now()}` };
    const first = await call('POST', '/v1/payment_intents', form, key);
    const second = await call('POST', '/v1/payment_intents', form, key);
    expect(second.json.id).toBe(first.json.id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const other = await call('POST', '/v1/payment_intents', { ...form, amount: '701' }, key);
    expect(other.status).toBe(400);
    expect(other.json.error?.type).toBe('idempotency_error');
  });

  it('computes charge fees (2.9% + 30) and the dispute fee exactly, and pays out the balance', async () => {
    const id = await authorizedIntent('10000');
    await call('POST', `/v1/payment_intents/${id}/capture`);
    const dispute = emulator.openDispute(id);
    const mine = emulator
      .balanceTransactions()
      .filter(
        (bt) =>
          bt.source === dispute.id ||
          bt.source === (emulator.paymentIntent(id).latest_charge as { id: string }).id,
      );
    expect(mine.map((bt) => [bt.type, bt.amount, bt.fee, bt.net])).toEqual([
      ['charge', 10000, 320, 9680],
      ['adjustment', -10000, 1500, -11500],
    ]);
    emulator.closeDispute(dispute.id, 'won');
    const before = emulator.balance().usd ?? 0;
    expect(before).toBeGreaterThan(0);
    const payout = emulator.createPayout('usd');
    expect(payout.amount).toBe(before);
    expect(emulator.balance().usd).toBe(0);
  });
});
