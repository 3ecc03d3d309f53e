import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_TEST_CARDS } from '../helpers/stripe-emulator/index.ts';
import { operatorCall, operatorRefund, orderMovement, orderStatus, partnerRefund } from './refund-support.ts';
import {
  intentsOf,
  jobsDueNow,
  placeCardOrder,
  type StripeFixture,
  startStripeApp,
} from './stripe-support.ts';
import { workerFor } from './support.ts';

/**
 * Refunds, chargebacks and the card reconciliation end to end through the Stripe connector on the
 * official SDK and the Stripe emulator (test/helpers/stripe-emulator: not Stripe), whose events
 * come back signed to the processor events route.
 */
let f: StripeFixture;
let fromMs: number;

beforeAll(async () => {
  f = await startStripeApp();
  fromMs = Date.now() - 1000;
});
afterAll(async () => f.close());

async function drain() {
  for (let round = 0; round < 3; round++) {
    await f.emulator.webhooks.idle();
    await jobsDueNow(f.t);
    await workerFor(f.t).drain();
  }
  await f.emulator.webhooks.idle();
}

async function deliveredOrder() {
  const created = await placeCardOrder(f.t, f.partner, STRIPE_TEST_CARDS.success);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const orderId = String(created.body.id);
  await drain();
  expect((await orderStatus(f.t, orderId)).status).toBe('COMPLETE');
  const [intent] = intentsOf(f.emulator, orderId);
  return { orderId, amount: created.amount, intentId: intent!.id };
}

async function refundRows(orderId: string) {
  const { rows } = await f.t.database.db.query(
    'SELECT id, kind, status, amount::text, processor_reference FROM card_refunds WHERE order_id = $1 ORDER BY n',
    [orderId],
  );
  return rows;
}

const stripeRefundsOf = (intentId: string) =>
  [...f.emulator.state.refunds.values()].filter((refund) => refund.payment_intent === intentId);

describe('Stripe: refunds', () => {
  it('a partner refund before capture cancels the PaymentIntent', async () => {
    const created = await placeCardOrder(f.t, f.partner, STRIPE_TEST_CARDS.success);
    const orderId = String(created.body.id);
    const refund = await partnerRefund(f.t, f.partner, orderId);
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    await drain();
    expect((await orderStatus(f.t, orderId)).status).toBe('FAILED');
    expect(f.emulator.paymentIntent(intentsOf(f.emulator, orderId)[0]!.id).status).toBe('canceled');
  });

  it('the operator’s partial then full refunds: each its own Stripe refund, confirmed by Stripe’s events', async () => {
    const { orderId, amount, intentId } = await deliveredOrder();
    const part = await operatorRefund(f.t, orderId, { amount: '30' });
    expect(part.body).toMatchObject({
      status: 'PENDING',
      kind: 'PARTIAL',
      id: `rampart-${orderId}-refund-1`,
    });
    await drain();
    const rest = await operatorRefund(f.t, orderId);
    expect(rest.body).toMatchObject({ id: `rampart-${orderId}-refund-2` });
    await drain();
    const refunds = stripeRefundsOf(intentId);
    expect(refunds.map((refund) => refund.amount).sort((a, b) => a - b)).toEqual(
      [3000, Math.round(Number(amount) * 100) - 3000].sort((a, b) => a - b),
    );
    const rows = await refundRows(orderId);
    expect(rows.map((row) => row.status)).toEqual(['COMPLETE', 'COMPLETE']);
    expect(new Set(rows.map((row) => row.processor_reference))).toEqual(
      new Set(refunds.map((refund) => refund.id)),
    );
    expect(await orderMovement(f.t, orderId, 'house:card-refund-losses')).toBe(`-${amount}`);
  });
});

describe('Stripe: chargebacks', () => {
  it('opened then lost: CHARGEBACK, the withdrawal kept', async () => {
    const { orderId, amount, intentId } = await deliveredOrder();
    const opened = f.emulator.openDispute(intentId);
    await drain();
    expect((await orderStatus(f.t, orderId)).status).toBe('CHARGEBACK');
    expect(await orderMovement(f.t, orderId, 'house:chargebacks')).toBe(`-${amount}`);
    f.emulator.closeDispute(opened.id, 'lost');
    await drain();
    expect((await orderStatus(f.t, orderId)).status).toBe('CHARGEBACK');
    expect(await orderMovement(f.t, orderId, 'house:chargebacks')).toBe(`-${amount}`);
  });

  it('opened then won: COMPLETE again, the withdrawal given back', async () => {
    const { orderId, intentId } = await deliveredOrder();
    const opened = f.emulator.openDispute(intentId);
    await drain();
    expect((await orderStatus(f.t, orderId)).status).toBe('CHARGEBACK');
    f.emulator.closeDispute(opened.id, 'won');
    await drain();
    expect((await orderStatus(f.t, orderId)).status).toBe('COMPLETE');
    expect(await orderMovement(f.t, orderId, 'house:chargebacks')).toBe('0');
  });
});

describe('Stripe: the card reconciliation', () => {
  it('balances against Stripe’s balance transactions, books its fees once, and matches a payout', async () => {
    f.emulator.createPayout('usd');
    const query = `from=${fromMs}&to=${Date.now() + 60_000}`;
    const first = await operatorCall(f.t, 'GET', `/operator/v1/cards/reconciliation?${query}`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.mismatches).toEqual([]);
    expect(first.body).toMatchObject({
      balanced: true,
      payouts: [{ matched: true, status: expect.any(String) }],
    });
    expect(Number(first.body.feesBooked)).toBeGreaterThan(0);
    const [usd] = first.body.currencies as Record<string, number>[];
    expect(usd!.processingFees).toBeGreaterThan(0);
    expect(usd!.disputeFees).toBe(30);
    const again = await operatorCall(f.t, 'GET', `/operator/v1/cards/reconciliation?${query}`);
    expect(again.body).toMatchObject({ balanced: true, feesBooked: 0 });
  });

  it('with a dispute Rampart never heard of, lists it by order', async () => {
    const { orderId, intentId } = await deliveredOrder();
    f.emulator.webhooks.setUrl('http://127.0.0.1:9/nowhere');
    try {
      f.emulator.openDispute(intentId);
      await f.emulator.webhooks.idle();
    } finally {
      f.emulator.webhooks.setUrl(`${f.t.baseUrl}/v3/card-processor/stripe/events`);
    }
    const off = await operatorCall(
      f.t,
      'GET',
      `/operator/v1/cards/reconciliation?from=${fromMs}&to=${Date.now() + 60_000}`,
    );
    expect(off.body.balanced).toBe(false);
    expect(off.body.mismatches).toContainEqual(expect.objectContaining({ orderId, category: 'chargebacks' }));
  });
});
