import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainBackend } from '../../src/chains/port.ts';
import { auditLedger } from '../../src/ledger/service.ts';
import { processOrder } from '../../src/wallet-orders/transitions.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  capturedUndelivered,
  moneyState,
  operatorRefund,
  orderMovement,
  orderStatus,
  partnerRefund,
  placeOrder,
  webhookStatuses,
} from './refund-support.ts';
import { startCardOrderAppWithWebhook, workerFor } from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderAppWithWebhook());
});
afterAll(async () => t.close());

async function sandboxRecord(orderId: string) {
  const { rows } = await t.database.db.query<{ state: string; refunded: string }>(
    'SELECT state, refunded::text FROM sandbox_card_authorizations WHERE order_id = $1',
    [orderId],
  );
  return rows[0];
}

async function deliveredOrder() {
  const placed = await placeOrder(t, partner);
  await workerFor(t).drain();
  expect((await orderStatus(t, placed.orderId)).status).toBe('COMPLETE');
  return placed;
}

describe('a partner refund', () => {
  it('before capture is a void: FAILED with a refund reason, hold and spend released, no money moved', async () => {
    const { orderId, amount } = await placeOrder(t, partner);
    const refund = await partnerRefund(t, partner, orderId);
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    expect(refund.body).toMatchObject({
      walletOrderId: orderId,
      requester: `account:${partner.accountId}`,
      status: 'COMPLETE',
      failedReason: null,
    });
    expect(refund.body.finishedAt).toBe(refund.body.createdAt);
    expect(await orderStatus(t, orderId)).toEqual({ status: 'FAILED', error_code: 'order.refunded' });
    expect(await sandboxRecord(orderId)).toEqual({ state: 'VOIDED', refunded: '0' });
    const { rows: holds } = await t.database.db.query(
      'SELECT h.state FROM ledger_holds h JOIN wallet_orders o ON o.hold_id = h.id WHERE o.id = $1',
      [orderId],
    );
    expect(holds).toEqual([{ state: 'voided' }]);
    const spend = await t.database.db.query('SELECT 1 FROM card_spend WHERE order_id = $1', [orderId]);
    expect(spend.rows).toEqual([]);
    expect(await orderMovement(t, orderId, 'external:card')).toBe('0');
    expect(await webhookStatuses(t, orderId)).toEqual(['FAILED']);
    expect(Number(amount)).toBeGreaterThan(0);
  });

  it('asked again answers the same refund and refunds nothing more', async () => {
    const { orderId } = await placeOrder(t, partner);
    const first = await partnerRefund(t, partner, orderId);
    const before = await moneyState(t);
    const again = await partnerRefund(t, partner, orderId);
    expect(again).toEqual(first);
    expect(await moneyState(t)).toEqual(before);
  });

  it('replays its answer for the same Idempotency-Key', async () => {
    const { orderId } = await placeOrder(t, partner);
    const key = { 'idempotency-key': `refund-${orderId}` };
    const first = await partnerRefund(t, partner, orderId, key);
    expect(first.status).toBe(200);
    expect(await partnerRefund(t, partner, orderId, key)).toEqual(first);
  });

  it('while the crypto is on its way but the card not captured is a void, the send stopped', async () => {
    const { orderId } = await placeOrder(t, partner);
    await processOrder(t.ctx, orderId);
    expect((await orderStatus(t, orderId)).status).toBe('PROCESSING');
    const refund = await partnerRefund(t, partner, orderId);
    expect(refund.body).toMatchObject({ status: 'COMPLETE', walletOrderId: orderId });
    expect(await orderStatus(t, orderId)).toEqual({ status: 'FAILED', error_code: 'order.refunded' });
    expect(await sandboxRecord(orderId)).toEqual({ state: 'VOIDED', refunded: '0' });
    expect(await orderMovement(t, orderId, 'external:card')).toBe('0');
    const { rows: sends } = await t.database.db.query('SELECT status FROM chain_sends WHERE reference = $1', [
      `order:${orderId}`,
    ]);
    expect(sends).toEqual([{ status: 'FAILED' }]);
    await workerFor(t).drain();
    expect(await webhookStatuses(t, orderId)).toEqual(['PROCESSING', 'FAILED']);
  });

  it('after capture and before delivery refunds the whole charge, stops the send and reverses the capture', async () => {
    const { orderId, amount } = await placeOrder(t, partner);
    await capturedUndelivered(t, orderId);
    expect((await orderStatus(t, orderId)).status).toBe('PROCESSING');
    expect(await orderMovement(t, orderId, 'external:card')).toBe(`-${amount}`);
    const refund = await partnerRefund(t, partner, orderId);
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    expect(refund.body).toMatchObject({ status: 'COMPLETE', walletOrderId: orderId });
    expect(await orderStatus(t, orderId)).toEqual({ status: 'FAILED', error_code: 'order.refunded' });
    expect(await sandboxRecord(orderId)).toEqual({ state: 'REFUNDED', refunded: amount });
    for (const owner of ['external:card', 'house:fx', 'house:fees']) {
      expect(await orderMovement(t, orderId, owner)).toBe('0');
    }
    const { rows: sends } = await t.database.db.query(
      'SELECT status, failure_reason FROM chain_sends WHERE reference = $1',
      [`order:${orderId}`],
    );
    expect(sends).toEqual([{ status: 'FAILED', failure_reason: 'cancelled' }]);
    const { rows: refunds } = await t.database.db.query(
      'SELECT id, kind, booking, amount::text FROM card_refunds WHERE order_id = $1',
      [orderId],
    );
    expect(refunds).toEqual([
      { id: `rampart-${orderId}-refund-1`, kind: 'FULL', booking: 'CAPTURE_REVERSED', amount },
    ]);
    // The cancelled send's settle job finds nothing to deliver: the order stays refunded.
    await workerFor(t).drain();
    expect((await orderStatus(t, orderId)).status).toBe('FAILED');
    expect(await webhookStatuses(t, orderId)).toEqual(['PROCESSING', 'FAILED']);
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('is refused while the delivery cannot be stopped, and nothing changes', async () => {
    const { orderId } = await placeOrder(t, partner);
    await processOrder(t.ctx, orderId);
    const backends = t.ctx.chains.backends;
    const sandbox = backends.ethereum!;
    backends.ethereum = { ...sandbox, cancelsQueuedSends: false } as ChainBackend;
    try {
      const before = await moneyState(t);
      const refused = await partnerRefund(t, partner, orderId);
      expect(refused.status).toBe(400);
      expect(refused.body.errorCode).toBe('refund.deliveryUnderway');
      expect(await moneyState(t)).toEqual(before);
    } finally {
      backends.ethereum = sandbox;
    }
  });

  it('after delivery is refused with its own code, and nothing changes', async () => {
    const { orderId } = await deliveredOrder();
    const before = await moneyState(t);
    const refused = await partnerRefund(t, partner, orderId);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: 'ValidationException', errorCode: 'refund.afterDelivery' });
    expect(await moneyState(t)).toEqual(before);
  });

  it('of another partner’s order reads as unknown', async () => {
    const other = await createPartner(t, { name: 'Other partner' });
    const { orderId } = await placeOrder(t, partner);
    const before = await moneyState(t);
    const foreign = await partnerRefund(t, other, orderId);
    const unknown = await partnerRefund(t, other, 'WO_AAAAAAAAAAA');
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.errorCode).toBe(unknown.body.errorCode);
    expect(await moneyState(t)).toEqual(before);
  });
});

describe('an operator refund', () => {
  it('after delivery gives back parts of the charge, each with its own id, booked as the house’s loss', async () => {
    const { orderId, amount } = await deliveredOrder();
    const first = await operatorRefund(t, orderId, { amount: '30.00', reason: 'goodwill' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      id: `rampart-${orderId}-refund-1`,
      kind: 'PARTIAL',
      amount: 30,
      currency: 'USD',
      booking: 'LOSS',
      status: 'COMPLETE',
      requester: 'operator:ops@example.com',
      reason: 'goodwill',
    });
    const second = await operatorRefund(t, orderId, { amount: 10 });
    expect(second.body).toMatchObject({ id: `rampart-${orderId}-refund-2`, amount: 10 });
    expect(await orderMovement(t, orderId, 'house:card-refund-losses')).toBe('-40');
    expect(await sandboxRecord(orderId)).toEqual({ state: 'CAPTURED', refunded: '40' });
    // The delivered crypto and what the capture earned stay booked; the order stays COMPLETE.
    expect((await orderStatus(t, orderId)).status).toBe('COMPLETE');
    const { rows: audit } = await t.database.db.query<{ detail: { requestedBy: string } }>(
      `SELECT detail FROM operator_audit WHERE target = $1 AND action LIKE 'POST /operator/v1/orders/%'`,
      [`order:${orderId}`],
    );
    expect(audit.map((row) => row.detail.requestedBy)).toEqual(['ops@example.com', 'ops@example.com']);

    const left = (Number(amount) * 100 - 4000) / 100;
    const before = await moneyState(t);
    const over = await operatorRefund(t, orderId, { amount: ((left * 100 + 1) / 100).toFixed(2) });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ errorCode: 'refund.exceedsCaptured', problematicField: 'amount' });
    expect(String(over.body.message)).toContain(`${left.toFixed(2)} USD`);
    expect(await moneyState(t)).toEqual(before);

    const rest = await operatorRefund(t, orderId);
    expect(rest.body).toMatchObject({ id: `rampart-${orderId}-refund-3`, kind: 'PARTIAL', amount: left });
    expect(await sandboxRecord(orderId)).toEqual({ state: 'REFUNDED', refunded: amount });
    const none = await operatorRefund(t, orderId, { amount: '0.01' });
    expect(none.body.errorCode).toBe('refund.exceedsCaptured');
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('before delivery refunds the whole charge as the partner’s does, and refuses a part of it', async () => {
    const { orderId } = await placeOrder(t, partner);
    const before = await moneyState(t);
    const partial = await operatorRefund(t, orderId, { amount: '1.00' });
    expect(partial.body.errorCode).toBe('refund.partialBeforeDelivery');
    expect(await moneyState(t)).toEqual(before);
    const whole = await operatorRefund(t, orderId);
    expect(whole.body).toMatchObject({
      kind: 'VOID',
      booking: 'NONE',
      requester: 'operator:ops@example.com',
    });
    expect((await orderStatus(t, orderId)).status).toBe('FAILED');
  });

  it('refuses bad input with the envelope and an unknown order with 404', async () => {
    const { orderId } = await deliveredOrder();
    const before = await moneyState(t);
    const cases = [
      await operatorRefund(t, orderId, { amount: '-5' }),
      await operatorRefund(t, orderId, { amount: '1.001' }),
      await operatorRefund(t, orderId, { requestedBy: '' }),
      await operatorRefund(t, orderId, { unknownField: 1 }),
    ];
    for (const refused of cases) expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect((await operatorRefund(t, 'WO_AAAAAAAAAAA')).status).toBe(404);
    expect(await moneyState(t)).toEqual(before);
  });
});

describe('the partner refund request', () => {
  it('takes an empty body, or none at all, signed or with a bearer key', async () => {
    const { orderId } = await placeOrder(t, partner);
    const { signedFetch, bearerFetch } = await import('../helpers/partner.ts');
    const bodiless = await signedFetch(t, partner, {
      method: 'POST',
      path: `/v3/orders/${orderId}/refund/partner`,
    });
    expect(bodiless.status, await bodiless.clone().text()).toBe(200);
    const other = await placeOrder(t, partner);
    const bearer = await bearerFetch(
      t,
      partner.secretKey,
      'POST',
      `/v3/orders/${other.orderId}/refund/partner`,
      {},
    );
    expect(bearer.status, await bearer.clone().text()).toBe(200);
    expect(await bearer.json()).toMatchObject({ walletOrderId: other.orderId, status: 'COMPLETE' });
  });
});
