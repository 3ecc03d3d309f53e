import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CardConnector, type ProcessorEvent, paymentKey } from '../../src/cards/connector.ts';
import { stripeConnector } from '../../src/cards/stripe/connector.ts';
import { Money } from '../../src/platform/money.ts';
import {
  STRIPE_TEST_CARDS,
  type StripeEmulator,
  startStripeEmulator,
} from '../helpers/stripe-emulator/index.ts';

// The connector through the official SDK against the Stripe emulator (test/helpers/stripe-emulator),
// whose objects are Stripe's published fixtures and whose webhooks are signed as Stripe signs them.

const WEBHOOK_SECRET = 'whsec_emulator_test_secret';
const billing = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone: '+15555550100',
  street1: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  postalCode: '62701',
  country: 'US',
};

let emulator: StripeEmulator;
let connector: CardConnector;
let received: ProcessorEvent[] = [];
let receiverUrl = '';
const receiver = createServer((req: IncomingMessage, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      const event = connector.parseEvent(Buffer.concat(chunks), req.headers as Record<string, string>);
      if (event) received.push(event);
      res.writeHead(200).end();
    } catch {
      res.writeHead(401).end();
    }
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/stripe`;
  emulator = await startStripeEmulator({ webhookSecret: WEBHOOK_SECRET, webhookUrl: receiverUrl });
  connector = stripeConnector({
    secretKey: emulator.secretKey,
    webhookSecret: WEBHOOK_SECRET,
    apiUrl: emulator.url,
    timeoutMs: 2_000,
  });
});

afterAll(async () => {
  await emulator.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

let orderSeq = 0;
async function authorizeCard(pan: string, amount = '25.00', force3ds = false) {
  const orderId = `WO_TEST${++orderSeq}${Date.now()}`;
  const token = await connector.tokenize({ pan, expMonth: 12, expYear: 2034, cvv: '123' }, billing);
  if (!token.ok) throw new Error(`tokenize failed: ${JSON.stringify(token)}`);
  const result = await connector.authorize({
    idempotencyKey: paymentKey(orderId, 'authorize'),
    orderId,
    token: token.value.token,
    amount: new Money(amount),
    currency: 'USD',
    returnUrl: 'https://rampart.example/checkout/return',
    force3ds,
  });
  return { orderId, token: token.value.token, result };
}

describe('Stripe connector against the emulator', () => {
  it('authorizes a debit card, captures it and refunds it, with events for each step', async () => {
    received = [];
    const { orderId, result } = await authorizeCard(STRIPE_TEST_CARDS.success, '25.00');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.status).toBe('AUTHORIZED');
    expect(result.value.amount.toFixed(2)).toBe('25.00');
    expect(result.value.authorizationExpiresAtMs).toBeGreaterThan(Date.now());
    const reference = result.value.reference;

    const captured = await connector.capture({
      idempotencyKey: paymentKey(orderId, 'capture'),
      reference,
      amount: new Money('25.00'),
      currency: 'USD',
    });
    expect(captured.ok && captured.value.status).toBe('CAPTURED');
    expect(captured.ok && captured.value.capturedAmount.toFixed(2)).toBe('25.00');

    const refunded = await connector.refund({
      idempotencyKey: paymentKey(orderId, 'refund'),
      reference,
      amount: new Money('10.00'),
      currency: 'USD',
      orderId,
    });
    expect(refunded.ok && refunded.value.status).toBe('SUCCEEDED');
    expect(refunded.ok && refunded.value.amount.toFixed(2)).toBe('10.00');

    await emulator.webhooks.idle();
    const kinds = received.filter((e) => e.orderId === orderId).map((e) => e.kind);
    expect(kinds).toContain('payment.updated');
    expect(kinds).toContain('refund.updated');
    const last = received.filter((e) => e.kind === 'payment.updated' && e.orderId === orderId).at(-1);
    expect(last?.kind === 'payment.updated' && last.payment.status).toBe('CAPTURED');
  });

  it('answers CHALLENGE for a 3-D Secure card, and AUTHORIZED after the buyer approves', async () => {
    const { result } = await authorizeCard(STRIPE_TEST_CARDS.threeDSecure);
    expect(result.ok && result.value.status).toBe('CHALLENGE');
    if (!result.ok || !result.value.challengeUrl) throw new Error('no challenge');
    const page = await fetch(`${result.value.challengeUrl}?result=approve`, { redirect: 'manual' });
    expect(page.status).toBe(302);
    const back = new URL(page.headers.get('location') ?? '');
    expect(back.origin + back.pathname).toBe('https://rampart.example/checkout/return');
    expect(back.searchParams.get('payment_intent')).toBe(result.value.reference);
    const after = await connector.retrieve(result.value.reference);
    expect(after.ok && after.value.status).toBe('AUTHORIZED');
  });

  it('answers DECLINED with AUTHENTICATION when the buyer fails 3-D Secure', async () => {
    const { result } = await authorizeCard(STRIPE_TEST_CARDS.threeDSecure);
    if (!result.ok || !result.value.challengeUrl) throw new Error('no challenge');
    await fetch(`${result.value.challengeUrl}?result=decline`, { redirect: 'manual' });
    const after = await connector.retrieve(result.value.reference);
    expect(after.ok && after.value.status).toBe('DECLINED');
    expect(after.ok && after.value.decline).toEqual({
      reason: 'AUTHENTICATION',
      processorCode: 'payment_intent_authentication_failure',
    });
  });

  it('asks for 3-D Secure on any card when force3ds is set', async () => {
    const { result } = await authorizeCard(STRIPE_TEST_CARDS.success, '30.00', true);
    expect(result.ok && result.value.status).toBe('CHALLENGE');
  });

  it.each([
    [STRIPE_TEST_CARDS.declined, 'DO_NOT_HONOR', 'generic_decline'],
    [STRIPE_TEST_CARDS.insufficientFunds, 'INSUFFICIENT_FUNDS', 'insufficient_funds'],
    [STRIPE_TEST_CARDS.incorrectZip, 'AVS_ZIP', 'incorrect_zip'],
  ])('declines %s as %s (%s)', async (pan, reason, code) => {
    const { result } = await authorizeCard(pan);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.status).toBe('DECLINED');
    expect(result.value.decline).toEqual({ reason, processorCode: code });
    expect(result.value.reference).toMatch(/^pi_/);
  });

  it('voids an authorization, and a second void answers the same snapshot', async () => {
    const { orderId, result } = await authorizeCard(STRIPE_TEST_CARDS.success);
    if (!result.ok) throw new Error('not authorized');
    const first = await connector.void({
      idempotencyKey: paymentKey(orderId, 'void'),
      reference: result.value.reference,
    });
    expect(first.ok && first.value.status).toBe('VOIDED');
    const again = await connector.void({
      idempotencyKey: `${paymentKey(orderId, 'void')}-other`,
      reference: result.value.reference,
    });
    expect(again.ok && again.value.status).toBe('VOIDED');
  });
});

describe('Stripe connector: replays, faults and refusals', () => {
  it('replays an authorization with the same idempotency key: one PaymentIntent, the first answer', async () => {
    const orderId = `WO_REPLAY${Date.now()}`;
    const token = await connector.tokenize(
      { pan: STRIPE_TEST_CARDS.success, expMonth: 1, expYear: 2035, cvv: '123' },
      billing,
    );
    if (!token.ok) throw new Error('tokenize failed');
    const op = {
      idempotencyKey: paymentKey(orderId, 'authorize'),
      orderId,
      token: token.value.token,
      amount: new Money('12.34'),
      currency: 'USD',
      returnUrl: 'https://rampart.example/r',
      force3ds: false,
    };
    const first = await connector.authorize(op);
    const second = await connector.authorize(op);
    expect(first.ok && second.ok && second.value.reference).toBe(first.ok && first.value.reference);
    const calls = emulator.requests.filter((r) => r.idempotencyKey === op.idempotencyKey);
    expect(calls.map((c) => c.replayed)).toEqual([false, true]);
    const intents = [...emulator.state.intents.values()].filter((pi) => pi.metadata?.order_id === orderId);
    expect(intents).toHaveLength(1);
    expect(intents[0]?.amount).toBe(1234);
  });

  it('refuses the same idempotency key with other parameters', async () => {
    const { orderId, token } = await authorizeCard(STRIPE_TEST_CARDS.success, '20.00');
    const other = await connector.authorize({
      idempotencyKey: paymentKey(orderId, 'authorize'),
      orderId,
      token,
      amount: new Money('21.00'),
      currency: 'USD',
      returnUrl: 'https://rampart.example/checkout/return',
      force3ds: false,
    });
    expect(other.ok).toBe(false);
    expect(!other.ok && !other.unconfirmed && other.refused).toMatch(/idempotent requests/);
  });

  it('answers unconfirmed on a 500, and the retry with the same key authorizes once', async () => {
    const orderId = `WO_FIVEHUNDRED${Date.now()}`;
    const token = await connector.tokenize(
      { pan: STRIPE_TEST_CARDS.success, expMonth: 1, expYear: 2035, cvv: '123' },
      billing,
    );
    if (!token.ok) throw new Error('tokenize failed');
    const op = {
      idempotencyKey: paymentKey(orderId, 'authorize'),
      orderId,
      token: token.value.token,
      amount: new Money('40.00'),
      currency: 'USD',
      returnUrl: 'https://rampart.example/r',
      force3ds: false,
    };
    emulator.failNext(1, 'error500');
    const failed = await connector.authorize(op);
    expect(failed).toMatchObject({ ok: false, unconfirmed: true });
    const retried = await connector.authorize(op);
    expect(retried.ok && retried.value.status).toBe('AUTHORIZED');
  });

  it('answers unconfirmed on a timeout after Stripe acted, and the retry gets the stored answer', async () => {
    const orderId = `WO_TIMEOUT${Date.now()}`;
    const token = await connector.tokenize(
      { pan: STRIPE_TEST_CARDS.success, expMonth: 1, expYear: 2035, cvv: '123' },
      billing,
    );
    if (!token.ok) throw new Error('tokenize failed');
    const op = {
      idempotencyKey: paymentKey(orderId, 'authorize'),
      orderId,
      token: token.value.token,
      amount: new Money('41.00'),
      currency: 'USD',
      returnUrl: 'https://rampart.example/r',
      force3ds: false,
    };
    emulator.failNext(1, 'timeoutAfterProcessing');
    const lost = await connector.authorize(op);
    expect(lost).toMatchObject({ ok: false, unconfirmed: true });
    const retried = await connector.authorize(op);
    expect(retried.ok && retried.value.status).toBe('AUTHORIZED');
    const intents = [...emulator.state.intents.values()].filter((pi) => pi.metadata?.order_id === orderId);
    expect(intents).toHaveLength(1);
  });

  it('captures part of a hold, refunds part, and refuses a refund over what remains', async () => {
    const { orderId, result } = await authorizeCard(STRIPE_TEST_CARDS.success, '50.00');
    if (!result.ok) throw new Error('not authorized');
    const reference = result.value.reference;
    const captured = await connector.capture({
      idempotencyKey: paymentKey(orderId, 'capture'),
      reference,
      amount: new Money('30.00'),
      currency: 'USD',
    });
    expect(captured.ok && captured.value.capturedAmount.toFixed(2)).toBe('30.00');
    const again = await connector.capture({
      idempotencyKey: `${paymentKey(orderId, 'capture')}-x`,
      reference,
      amount: new Money('30.00'),
      currency: 'USD',
    });
    expect(again.ok && again.value.status).toBe('CAPTURED');
    const partial = await connector.refund({
      idempotencyKey: paymentKey(orderId, 'refund', 1),
      reference,
      amount: new Money('20.00'),
      currency: 'USD',
      orderId,
    });
    expect(partial.ok).toBe(true);
    const over = await connector.refund({
      idempotencyKey: paymentKey(orderId, 'refund', 2),
      reference,
      amount: new Money('10.01'),
      currency: 'USD',
      orderId,
    });
    expect(over).toMatchObject({ ok: false, unconfirmed: false });
    expect(!over.ok && !over.unconfirmed && over.refused).toMatch(/^amount_too_large/);
  });

  it('refuses a capture over the held amount as a 4xx, not as unconfirmed', async () => {
    const { orderId, result } = await authorizeCard(STRIPE_TEST_CARDS.success, '10.00');
    if (!result.ok) throw new Error('not authorized');
    const over = await connector.capture({
      idempotencyKey: paymentKey(orderId, 'capture'),
      reference: result.value.reference,
      amount: new Money('10.01'),
      currency: 'USD',
    });
    expect(over).toMatchObject({ ok: false, unconfirmed: false });
  });
});

describe('Stripe connector: disputes and the processor record', () => {
  it('reports a dispute on the dispute test card after capture, and its loss', async () => {
    received = [];
    const { orderId, result } = await authorizeCard(STRIPE_TEST_CARDS.dispute, '60.00');
    if (!result.ok) throw new Error('not authorized');
    const reference = result.value.reference;
    await connector.capture({
      idempotencyKey: paymentKey(orderId, 'capture'),
      reference,
      amount: new Money('60.00'),
      currency: 'USD',
    });
    await emulator.webhooks.idle();
    const opened = received.find(
      (e) => e.kind === 'dispute.opened' && e.dispute.paymentReference === reference,
    );
    expect(opened).toMatchObject({
      kind: 'dispute.opened',
      orderId: null,
      dispute: { reason: 'fraudulent', currency: 'USD' },
    });
    if (opened?.kind !== 'dispute.opened') return;
    expect(opened.dispute.amount.toFixed(2)).toBe('60.00');
    emulator.closeDispute(opened.dispute.reference, 'lost');
    await emulator.webhooks.idle();
    expect(received.find((e) => e.kind === 'dispute.lost')).toMatchObject({
      dispute: { paymentReference: reference },
    });
  });

  it('lists balance transactions with fees, order ids and payouts for reconciliation', async () => {
    const from = Date.now() - 1000;
    const { orderId, result } = await authorizeCard(STRIPE_TEST_CARDS.success, '100.00');
    if (!result.ok) throw new Error('not authorized');
    const reference = result.value.reference;
    await connector.capture({
      idempotencyKey: paymentKey(orderId, 'capture'),
      reference,
      amount: new Money('100.00'),
      currency: 'USD',
    });
    await connector.refund({
      idempotencyKey: paymentKey(orderId, 'refund'),
      reference,
      amount: new Money('25.00'),
      currency: 'USD',
      orderId,
    });
    const paid = emulator.createPayout('usd');
    const listed = await connector.balanceTransactions({ fromMs: from, toMs: Date.now() + 1000 });
    expect(listed.ok).toBe(true);
    if (!listed.ok) return;
    const mine = listed.value.filter((bt) => bt.orderId === orderId);
    expect(mine.map((bt) => [bt.type, bt.amount.toFixed(2), bt.fee.toFixed(2), bt.paymentReference])).toEqual(
      expect.arrayContaining([
        ['charge', '100.00', '3.20', reference],
        ['refund', '-25.00', '0.00', reference],
      ]),
    );
    expect(listed.value.find((bt) => bt.type === 'payout')).toMatchObject({ payoutReference: paid.id });
    const payouts = await connector.payouts({ fromMs: from, toMs: Date.now() + 1000 });
    expect(payouts.ok && payouts.value.find((p) => p.reference === paid.id)).toMatchObject({
      status: 'PAID',
      currency: 'USD',
    });
  });

  it('pages through more balance transactions than one page of 100 holds', async () => {
    // Made in the emulator's state directly: 105 captures through HTTP would only slow the test.
    for (let i = 0; i < 105; i++) {
      const intent = emulator.state.createIntent({
        amount: 100,
        currency: 'usd',
        paymentMethod: 'pm_card_visa_debit',
        captureMethod: 'manual',
        confirm: true,
        returnUrl: undefined,
        metadata: { order_id: `WO_PAGE${i}` },
        requestThreeDSecure: undefined,
        statementDescriptorSuffix: undefined,
        description: undefined,
      });
      emulator.state.capture(intent.id, undefined);
    }
    const total = emulator.balanceTransactions().length;
    expect(total).toBeGreaterThan(100);
    const listed = await connector.balanceTransactions({ fromMs: 0, toMs: Date.now() + 1000 });
    expect(listed.ok && listed.value.length).toBe(total);
    expect(listed.ok && new Set(listed.value.map((bt) => bt.reference)).size).toBe(total);
  });

  it('answers unconfirmed when Stripe never answers, and nothing was charged', async () => {
    const orderId = `WO_SILENT${Date.now()}`;
    const token = await connector.tokenize(
      { pan: STRIPE_TEST_CARDS.success, expMonth: 1, expYear: 2035, cvv: '123' },
      billing,
    );
    if (!token.ok) throw new Error('tokenize failed');
    emulator.failNext(1, 'timeout');
    const silent = await connector.authorize({
      idempotencyKey: paymentKey(orderId, 'authorize'),
      orderId,
      token: token.value.token,
      amount: new Money('9.99'),
      currency: 'USD',
      returnUrl: 'https://rampart.example/r',
      force3ds: false,
    });
    expect(silent).toMatchObject({ ok: false, unconfirmed: true });
    expect(
      [...emulator.state.intents.values()].filter((pi) => pi.metadata?.order_id === orderId),
    ).toHaveLength(0);
  });

  it('refuses a call with a wrong API key as a 4xx, not unconfirmed', async () => {
    const wrong = stripeConnector({
      secretKey: 'sk_test_wrong',
      webhookSecret: WEBHOOK_SECRET,
      apiUrl: emulator.url,
      timeoutMs: 2_000,
    });
    const result = await wrong.retrieve('pi_whatever');
    expect(result).toMatchObject({ ok: false, unconfirmed: false });
  });

  it('refuses an amount finer than the currency before calling Stripe', async () => {
    const result = await connector.capture({
      idempotencyKey: 'k-fine',
      reference: 'pi_x',
      amount: new Money('1.005'),
      currency: 'USD',
    });
    expect(result).toMatchObject({ ok: false, unconfirmed: false });
  });
});
