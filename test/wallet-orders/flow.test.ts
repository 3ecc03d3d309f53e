import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FAILING_ADDRESSES } from '../../src/chains/sandbox-chain.ts';
import { auditLedger } from '../../src/ledger/service.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  cardHoldState,
  createOrder,
  ETH_ADDRESS,
  lockedReservation,
  nonZeroBalances,
  orderBody,
  postSigned,
  processingWorkerFor,
  readOrder,
  reserve,
  sandboxAuthorizationState,
  startCardOrderApp,
  workerFor,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp());
  const hook = await postSigned(t, partner, '/v2/digitalwallet/webhook', {
    owner: `account:${partner.accountId}`,
    webhook: 'http://127.0.0.1:9/wallet-orders',
  });
  expect(hook.status, await hook.clone().text()).toBe(200);
  expect(await hook.json()).toEqual({
    owner: `account:${partner.accountId}`,
    webhook: 'http://127.0.0.1:9/wallet-orders',
  });
});
afterAll(async () => t.close());

async function orderRow(id: string) {
  const { rows } = await t.database.db.query<{ dest_amount: string; source_amount: string }>(
    'SELECT dest_amount::text, source_amount::text FROM wallet_orders WHERE id = $1',
    [id],
  );
  return rows[0]!;
}

async function webhookBodies(orderId: string) {
  const { rows } = await t.database.db.query<{ body: string; url: string }>(
    'SELECT body, url FROM callback_deliveries WHERE trigger = $1 ORDER BY created_at, id',
    [`order:${orderId}`],
  );
  return rows.map((row) => ({ url: row.url, body: JSON.parse(String(row.body)) as Record<string, unknown> }));
}

/**
 * Places an order and reads it back at once: the answer must be the same bytes, fees included in
 * the same key order (a fresh quote's fees are made in another order than jsonb answers them).
 * Then lets the worker finish it, as later tests compare balances before and after their own order.
 */
async function expectAnsweredAsReadBack(body: unknown) {
  const created = await postSigned(t, partner, '/v3/debitcard/process/partner', body);
  const createdText = await created.text();
  expect(created.status, createdText).toBe(200);
  const { id, fees } = JSON.parse(createdText) as { id: string; fees: object };
  expect(Object.keys(fees).length).toBeGreaterThan(1);
  const read = await signedFetch(t, partner, { path: `/v3/orders/${id}` });
  expect(read.status).toBe(200);
  expect(createdText).toBe(await read.text());
  await workerFor(t).drain();
}

describe('a card order from a rate-locked reservation', () => {
  it('goes RUNNING_CHECKS → PROCESSING → COMPLETE, books the money and sends two webhooks', async () => {
    const { reservation, amount } = await lockedReservation(t, partner, { referenceId: 'my-ref-1' });
    const created = await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { referenceId: 'my-ref-1' }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      status: 'RUNNING_CHECKS',
      sourceAmount: Number(amount),
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      transferId: null,
      authCodesRequested: false,
      paymentMethodName: 'Visa ending 1111',
      accountId: partner.accountId,
      owner: `account:${partner.accountId}`,
      walletType: 'DEBIT_CARD',
      orderType: 'DOMESTIC',
      referenceId: 'my-ref-1',
    });
    const orderId = String(created.body.id);
    expect(orderId).toMatch(/^WO_[2-9A-HJ-NP-Z]{11}$/);
    const row = await orderRow(orderId);
    const balanceOf = async (owner: string, currency: string) =>
      (await nonZeroBalances(t)).find((b) => b.owner === owner && b.currency === currency);

    // PROCESSING, its send queued: the card is only authorized, its hold still held.
    await processingWorkerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('PROCESSING');
    expect(await cardHoldState(t, orderId)).toBe('pending');
    expect(await sandboxAuthorizationState(t, orderId)).toBe('AUTHORIZED');
    expect(await balanceOf('external:card', 'USD')).toEqual({
      owner: 'external:card',
      currency: 'USD',
      total: '0',
      available: `-${row.source_amount}`,
    });

    // Delivered: captured with the delivery, the hold settled.
    await workerFor(t).drain();
    const done = await readOrder(t, partner, orderId);
    expect(done.status).toBe('COMPLETE');
    expect(String(done.transferId)).toMatch(/^TF_/);
    expect(await cardHoldState(t, orderId)).toBe('posted');
    expect(await sandboxAuthorizationState(t, orderId)).toBe('CAPTURED');
    expect((await balanceOf('external:card', 'USD'))?.total).toBe(`-${row.source_amount}`);
    expect((await balanceOf('external:chain:ethereum', 'ETH'))?.total).toBe(row.dest_amount);
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
    const hooks = await webhookBodies(orderId);
    expect(hooks.map((hook) => hook.body.orderStatus)).toEqual(['PROCESSING', 'COMPLETE']);
    expect(hooks[1]).toEqual({
      url: 'http://127.0.0.1:9/wallet-orders',
      body: {
        referenceId: 'my-ref-1',
        accountId: partner.accountId,
        orderId,
        orderStatus: 'COMPLETE',
        transferId: done.transferId,
      },
    });
  });

  it('answers the order exactly as it reads back, byte for byte', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    await expectAnsweredAsReadBack(orderBody(partner, reservation, amount));
  });

  it('fails and voids the authorization, never captured, when the chain rejects the delivery', async () => {
    const dest = `ethereum:${SANDBOX_FAILING_ADDRESSES.ethereum}`;
    const { reservation, amount } = await lockedReservation(t, partner, { dest });
    const before = await nonZeroBalances(t);
    const created = await createOrder(t, partner, orderBody(partner, reservation, amount, { dest }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const orderId = String(created.body.id);
    await workerFor(t).drain();
    const failed = await readOrder(t, partner, orderId);
    expect(failed).toMatchObject({ status: 'FAILED', errorCode: 'transfer.deliveryFailed' });
    expect(String(failed.errorMessage)).toMatch(/the card was not charged\.$/);
    expect(await sandboxAuthorizationState(t, orderId)).toBe('VOIDED');
    expect(await cardHoldState(t, orderId)).toBe('voided');
    const spend = await t.database.db.query('SELECT 1 FROM card_spend WHERE order_id = $1', [orderId]);
    expect(spend.rows).toEqual([]);
    // Nothing was ever posted for it: no capture, no refund, every balance where it was.
    const entries = await t.database.db.query('SELECT kind FROM ledger_entries WHERE reference = $1', [
      `order:${orderId}`,
    ]);
    expect(entries.rows).toEqual([]);
    expect(await nonZeroBalances(t)).toEqual(before);
    const hooks = await webhookBodies(orderId);
    expect(hooks.map((hook) => hook.body.orderStatus)).toEqual(['PROCESSING', 'FAILED']);
    expect(hooks[1]!.body).toMatchObject({
      orderStatus: 'FAILED',
      error: { errorCategory: 'GENERAL', errorCode: 'transfer.deliveryFailed' },
    });
  });

  it('credits a custody account at once (COMPLETE without a chain)', async () => {
    const dest = `account:${partner.accountId}`;
    const { reservation, amount } = await lockedReservation(t, partner, { dest });
    const created = await createOrder(t, partner, orderBody(partner, reservation, amount, { dest }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await workerFor(t).drain();
    const done = await readOrder(t, partner, String(created.body.id));
    expect(done.status).toBe('COMPLETE');
    const row = await orderRow(String(created.body.id));
    const balances = await nonZeroBalances(t);
    expect(balances.find((b) => b.owner === dest && b.currency === 'ETH')?.total).toBe(row.dest_amount);
  });

  it('hides another partner’s order like an unknown one', async () => {
    const other = await createPartner(t, { name: 'Other' });
    const { reservation, amount } = await lockedReservation(t, partner);
    const created = await createOrder(t, partner, orderBody(partner, reservation, amount));
    const { signedFetch } = await import('../helpers/partner.ts');
    const foreign = await signedFetch(t, other, { path: `/v3/orders/${created.body.id}` });
    const unknown = await signedFetch(t, other, { path: '/v3/orders/WO_AAAAAAAAAAA' });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
  });
});

describe('a card order from a reservation without a locked rate', () => {
  const unlockedBody = (extra: Record<string, unknown> = {}) => ({
    amount: '50',
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
    dest: `ethereum:${ETH_ADDRESS}`,
    referrerAccountId: partner.accountId,
    country: 'US',
    ...extra,
  });

  it('charges `amount` as the total at current prices, and uses the reservation once', async () => {
    const { reservation } = await reserve(t, partner, unlockedBody());
    const created = await createOrder(t, partner, orderBody(partner, reservation, '60'));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      status: 'RUNNING_CHECKS',
      sourceAmount: 60,
      reservationId: reservation,
    });
    expect(Number(created.body.purchaseAmount)).toBeLessThan(60);
    const again = await createOrder(t, partner, orderBody(partner, reservation, '60'));
    expect(again.body.errorCode).toBe('illegalReservation');
  });

  it('answers the order exactly as it reads back, its fresh quote’s fees in jsonb order', async () => {
    const { reservation } = await reserve(t, partner, unlockedBody());
    await expectAnsweredAsReadBack(orderBody(partner, reservation, '60'));
  });

  it('with its amount locked, takes only that amount plus fees; a refusal leaves it usable', async () => {
    const { reservation } = await reserve(t, partner, unlockedBody({ lockFields: ['amount'] }));
    const refused = await postSigned(
      t,
      partner,
      '/v3/debitcard/process/partner',
      orderBody(partner, reservation, '50'),
      { 'Idempotency-Key': `unlocked-${reservation}` },
    );
    const answer = (await refused.json()) as { errorCode: string; message: string };
    expect(refused.status).toBe(400);
    expect(answer.errorCode).toBe('validation.amountMismatch');
    const total = /quote: ([\d.]+) USD/.exec(answer.message)![1]!;
    expect(Number(total)).toBeGreaterThan(50);
    const created = await postSigned(
      t,
      partner,
      '/v3/debitcard/process/partner',
      orderBody(partner, reservation, total),
      { 'Idempotency-Key': `unlocked-${reservation}-2` },
    );
    const order = (await created.json()) as Record<string, unknown>;
    expect(created.status, JSON.stringify(order)).toBe(200);
    expect(order).toMatchObject({ sourceAmount: Number(total), purchaseAmount: 50 });
  });
});
