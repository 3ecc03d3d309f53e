import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkoutBody,
  checkoutLink,
  expectCardsNowhere,
  pageOrderBody,
  pageQuoteTotal,
  postJson,
} from '../checkout/support.ts';
import { signedFetch } from '../helpers/partner.ts';
import { STRIPE_TEST_CARDS } from '../helpers/stripe-emulator/index.ts';
import {
  intentsOf,
  jobsDueNow,
  orderIdOfReservation,
  paymentRow,
  placeCardOrder,
  type StripeFixture,
  startStripeApp,
} from './stripe-support.ts';
import { readOrder, workerFor } from './support.ts';

/**
 * Card orders end to end through Rampart's HTTP API, the Stripe connector on the official SDK and
 * the Stripe emulator (test/helpers/stripe-emulator: not Stripe; its objects come from Stripe's
 * published fixtures and its answers are typed with the SDK's own types). The same lifecycle runs
 * against Stripe's test mode in stripe-live.test.ts when STRIPE_TEST_SECRET_KEY is set.
 */
let f: StripeFixture;

beforeAll(async () => {
  f = await startStripeApp();
});
afterAll(async () => f.close());

const cents = (amount: string) => Math.round(Number(amount) * 100);
const holdsOf = async (orderId: string) =>
  (
    await f.t.database.db.query('SELECT state FROM ledger_holds WHERE reference = $1', [`order:${orderId}`])
  ).rows.map((row) => row.state);
const spendOf = async (orderId: string) =>
  (await f.t.database.db.query('SELECT 1 FROM card_spend WHERE order_id = $1', [orderId])).rowCount;

async function drain() {
  await f.emulator.webhooks.idle();
  await jobsDueNow(f.t);
  await workerFor(f.t).drain();
  await f.emulator.webhooks.idle();
}

describe('Stripe: the order lifecycle', () => {
  it('frictionless: RUNNING_CHECKS → PROCESSING → COMPLETE, the PaymentIntent captured for the exact amount', async () => {
    const created = await placeCardOrder(f.t, f.partner, STRIPE_TEST_CARDS.success);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const orderId = String(created.body.id);
    expect(created.body.status).toBe('RUNNING_CHECKS');
    const payment = await paymentRow(f.t, orderId);
    expect(payment).toMatchObject({ state: 'AUTHORIZED', processor: 'stripe' });
    expect(String(payment!.token)).toMatch(/^pm_/);
    const [intent] = intentsOf(f.emulator, orderId);
    expect(intent).toMatchObject({
      status: 'requires_capture',
      capture_method: 'manual',
      amount: cents(created.amount),
    });
    await drain();
    expect((await readOrder(f.t, f.partner, orderId)).status).toBe('COMPLETE');
    const captured = f.emulator.paymentIntent(intent!.id);
    expect(captured.status).toBe('succeeded');
    expect(captured.amount_received).toBe(cents(created.amount));
    expect(intentsOf(f.emulator, orderId)).toHaveLength(1);
    const capture = await f.t.database.db.query(
      `SELECT sum(p.amount)::text AS total FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
       WHERE e.kind = 'order.capture' AND e.reference = $1 AND p.owner = 'external:card'`,
      [`order:${orderId}`],
    );
    expect(capture.rows[0].total).toBe(`-${created.amount}`);
  });

  it('3-D Secure: the challenge URL, the emulator’s page approves, the return clears the order', async () => {
    const created = await placeCardOrder(f.t, f.partner, STRIPE_TEST_CARDS.threeDSecure);
    expect(created.status).toBe(200);
    const orderId = String(created.body.id);
    const state = (await (
      await signedFetch(f.t, f.partner, { path: `/v3/debitcard/authorization/${orderId}` })
    ).json()) as { authorization3dsUrl: string; smsNeeded: boolean };
    expect(state.smsNeeded).toBe(false);
    const { pathname } = new URL(state.authorization3dsUrl);
    const start = await fetch(`${f.t.baseUrl}${pathname}`, { redirect: 'manual' });
    expect(start.status).toBe(303);
    const challenge = new URL(start.headers.get('location')!);
    expect(challenge.origin).toBe(new URL(f.emulator.url).origin);
    challenge.searchParams.set('result', 'approve');
    const issuer = await fetch(challenge, { redirect: 'manual' });
    expect(issuer.status).toBe(302);
    const back = new URL(issuer.headers.get('location')!);
    expect(back.pathname).toMatch(new RegExp(`^/card-processor/return/${orderId}/`));
    const returned = await fetch(`${f.t.baseUrl}${back.pathname}${back.search}`);
    const returnedText = await returned.text();
    expect(returnedText, returnedText).toContain('Payment approved');
    await drain();
    expect((await readOrder(f.t, f.partner, orderId)).status).toBe('COMPLETE');
    expect(f.emulator.paymentIntent(intentsOf(f.emulator, orderId)[0]!.id).status).toBe('succeeded');
  });

  it('a decline answers Wyre’s error; the order is FAILED, hold and spend released, the raw code kept', async () => {
    const created = await placeCardOrder(f.t, f.partner, STRIPE_TEST_CARDS.insufficientFunds);
    expect(created.status).toBe(400);
    expect(created.body.errorCode).toBe('validation.insufficientFunds');
    expect(JSON.stringify(created.body)).not.toContain('insufficient_funds');
    const orderId = await orderIdOfReservation(f.t, created.reservation);
    expect((await readOrder(f.t, f.partner, orderId)).status).toBe('FAILED');
    expect(await holdsOf(orderId)).toEqual(['voided']);
    expect(await spendOf(orderId)).toBe(0);
    expect(await paymentRow(f.t, orderId)).toMatchObject({ state: 'DECLINED' });
    expect(String((await paymentRow(f.t, orderId))!.processor_code)).toContain('insufficient_funds');
  });

  const paymentIntentCreate = (method: string, path: string) =>
    method === 'POST' && path === '/v1/payment_intents';

  it.each([
    ['a 500', 'fail'],
    ['a timeout after Stripe made the payment', 'hold'],
  ] as const)(
    '%s on authorize: the order stays pending, the poll resolves it, one PaymentIntent',
    async (_name, fault) => {
      // Events would resolve it too: held back, so that the poll is what resolves it.
      f.emulator.webhooks.pause();
      if (fault === 'fail') f.proxy.failNext(paymentIntentCreate);
      else void f.proxy.holdNext(paymentIntentCreate);
      const created = await placeCardOrder(f.t, f.partner, STRIPE_TEST_CARDS.success);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const orderId = String(created.body.id);
      expect(created.body.status).toBe('RUNNING_CHECKS');
      expect(await paymentRow(f.t, orderId)).toMatchObject({ state: 'AUTHORIZING' });
      await jobsDueNow(f.t);
      await workerFor(f.t).drain();
      // The poll found the payment authorized; the worker then processed and captured it.
      expect(await paymentRow(f.t, orderId)).toMatchObject({ state: 'CAPTURED' });
      await f.emulator.webhooks.resume();
      await drain();
      expect((await readOrder(f.t, f.partner, orderId)).status).toBe('COMPLETE');
      expect(intentsOf(f.emulator, orderId)).toHaveLength(1);
    },
  );

  it('Stripe unreachable while tokenizing: 503, nothing stored, the reservation still usable', async () => {
    f.emulator.failNext(1, 'error500');
    const created = await placeCardOrder(f.t, f.partner, STRIPE_TEST_CARDS.success);
    expect(created.status).toBe(503);
    expect(created.body.errorCode).toBe('card.processorUnavailable');
    const { rows } = await f.t.database.db.query('SELECT 1 FROM wallet_orders WHERE reservation_id = $1', [
      created.reservation,
    ]);
    expect(rows).toHaveLength(0);
  });
});

describe('Stripe: events', () => {
  const post = (body: string, signature: string) =>
    fetch(`${f.t.baseUrl}/v3/card-processor/stripe/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body,
    });

  it('a bad signature is 401 and changes nothing', async () => {
    const before = await f.t.database.db.query('SELECT count(*)::int AS n FROM card_processor_events');
    const payload = JSON.stringify({
      id: 'evt_forged',
      type: 'payment_intent.succeeded',
      data: { object: {} },
    });
    const forged = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_not_ours' });
    const response = await post(payload, forged);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ errorCode: 'cardProcessor.invalidSignature' });
    const after = await f.t.database.db.query('SELECT count(*)::int AS n FROM card_processor_events');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('events delivered twice and out of order resolve a 3-D Secure order once', async () => {
    const created = await placeCardOrder(f.t, f.partner, STRIPE_TEST_CARDS.threeDSecure);
    const orderId = String(created.body.id);
    const intent = intentsOf(f.emulator, orderId)[0]!;
    f.emulator.webhooks.pause();
    f.emulator.completeThreeDSecure(intent.id, 'approve');
    const queued = f.emulator.webhooks.pending().map((event) => event.id);
    await f.emulator.webhooks.resume({ reverse: true });
    for (const id of queued) await f.emulator.webhooks.redeliver(id);
    expect(await paymentRow(f.t, orderId)).toMatchObject({ state: 'AUTHORIZED' });
    const jobs = await f.t.database.db.query(
      `SELECT count(*)::int AS n FROM jobs WHERE kind = 'walletOrders.process' AND payload::text LIKE $1`,
      [`%${orderId}%`],
    );
    expect(jobs.rows[0].n).toBe(1);
    await drain();
    expect((await readOrder(f.t, f.partner, orderId)).status).toBe('COMPLETE');
    expect(f.emulator.paymentIntent(intent.id).amount_received).toBe(cents(created.amount));
  });

  it('an event for an order Rampart does not know is recorded and answered 200', async () => {
    const stripe = new Stripe(f.emulator.secretKey, {
      host: '127.0.0.1',
      port: f.emulator.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    });
    const method = await stripe.paymentMethods.create({
      type: 'card',
      card: { number: STRIPE_TEST_CARDS.success, exp_month: 1, exp_year: 2030, cvc: '123' },
    });
    await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      payment_method: method.id,
      capture_method: 'manual',
      confirm: true,
      metadata: { order_id: 'WO_NOTOURS2345' },
    });
    await f.emulator.webhooks.idle();
    const { rows } = await f.t.database.db.query(
      `SELECT DISTINCT outcome FROM card_processor_events WHERE order_id IS NULL`,
    );
    expect(rows).toEqual([{ outcome: 'unknown-order' }]);
    expect(f.emulator.webhooks.deliveries.every((delivery) => delivery.status === 200)).toBe(true);
  });
});

describe('Stripe: the hosted checkout', () => {
  it('posts the card to Rampart, which tokenizes it server-side; no table holds the number', async () => {
    const body = checkoutBody(f.partner, { sourceAmount: '20', street1: '7 Checkout St' });
    const { reservation } = await checkoutLink(f.t, f.partner, body);
    const total = await pageQuoteTotal(f.t, f.partner, reservation);
    const before = f.emulator.requests.length;
    const card = { number: STRIPE_TEST_CARDS.success, year: '2030', month: '12', cvv: '123' };
    const response = await postJson(
      f.t,
      '/purchase/orders',
      pageOrderBody(f.partner, { reservation, total, street1: '7 Checkout St' }, { debitCard: card }),
    );
    expect(response.status, await response.clone().text()).toBe(200);
    const { orderId } = (await response.json()) as { orderId: string };
    const calls = f.emulator.requests.slice(before).map((request) => `${request.method} ${request.path}`);
    expect(calls.slice(0, 2)).toEqual(['POST /v1/payment_methods', 'POST /v1/payment_intents']);
    expect(await paymentRow(f.t, orderId)).toMatchObject({ state: 'AUTHORIZED' });
    await expectCardsNowhere(f.t, [STRIPE_TEST_CARDS.success]);
  });
});
