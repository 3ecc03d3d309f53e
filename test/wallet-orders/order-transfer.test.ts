import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FAILING_ADDRESSES } from '../../src/chains/sandbox-chain.ts';
import { auditLedger } from '../../src/ledger/service.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import type { TransferBody } from '../transfers/support.ts';
import { asUser, createUser } from '../users/support.ts';
import {
  createOrder,
  ETH_ADDRESS,
  lockedReservation,
  orderBody,
  postSigned,
  readOrder,
  roomyPartner,
  setLimits,
  startCardOrderApp,
  workerFor,
} from './support.ts';

/**
 * A card order's `transferId` names a transfer the partner can read (facts §1.5, §1.9): PENDING
 * while the order is PROCESSING, then COMPLETED with the chain's blockchainTx, or FAILED with a
 * reason; the order's figures exactly; a record only, so no ledger entry of its own.
 */

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp());
});
afterAll(async () => t.close());

async function getTransfer(who: PartnerCredentials, id: unknown) {
  const response = await signedFetch(t, who, { path: `/v3/transfers/${String(id)}` });
  return { status: response.status, body: (await response.json()) as TransferBody };
}

async function history(who: PartnerCredentials) {
  const response = await signedFetch(t, who, { path: '/v3/transfers?limit=100' });
  expect(response.status).toBe(200);
  return (await response.json()) as { data: TransferBody[]; recordsTotal: number };
}

/** Reserves, orders with the approving card and runs the worker; answers the finished order. */
async function completedOrder(who: PartnerCredentials, extra: Record<string, unknown> = {}) {
  const reserveExtra = 'dest' in extra ? { dest: extra.dest } : {};
  const { reservation, amount } = await lockedReservation(t, who, reserveExtra);
  const created = await createOrder(t, who, orderBody(who, reservation, amount, extra));
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await workerFor(t).drain();
  return readOrder(t, who, String(created.body.id));
}

/** The order's quote, as the transfer must repeat it. */
function expectSameFigures(transfer: TransferBody, order: Record<string, unknown>) {
  expect(transfer).toMatchObject({
    sourceCurrency: order.sourceCurrency,
    sourceAmount: order.sourceAmount,
    destCurrency: order.destCurrency,
    destAmount: order.destAmount,
    exchangeRate: order.exchangeRate,
    fees: order.fees,
  });
  // totalFees in the source currency (facts §1.5): charged minus purchase amount, to the cent.
  const cents = (value: unknown) => Math.round(Number(value) * 100);
  expect(cents(transfer.totalFees)).toBe(cents(order.sourceAmount) - cents(order.purchaseAmount));
}

async function ledgerEntriesFor(transferId: string) {
  const { rows } = await t.database.db.query('SELECT id FROM ledger_entries WHERE reference = $1', [
    `transfer:${transferId}`,
  ]);
  return rows;
}

describe('the delivery transfer of a card order', () => {
  it('is COMPLETED with the blockchainTx and the order’s figures once the chain delivered', async () => {
    const order = await completedOrder(partner);
    expect(order.status).toBe('COMPLETE');
    const { status, body } = await getTransfer(partner, order.transferId);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      id: order.transferId,
      status: 'COMPLETED',
      owner: `account:${partner.accountId}`,
      source: `walletorderholding:${String(order.id)}`,
      dest: `ethereum:${ETH_ADDRESS}`,
      failureReason: null,
    });
    expectSameFigures(body, order);
    expect(body.completedAt).toEqual(expect.any(Number));
    expect(body.blockchainTx).toMatchObject({
      networkTxId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      amount: order.destAmount,
      currency: 'ETH',
      direction: 'OUTGOING',
    });
    expect(body.statusHistories.map((h) => [h.state, h.statusOrder])).toEqual([
      ['INITIATED', 0],
      ['PENDING', 200],
      ['COMPLETED', 400],
    ]);
    // A record, not a movement: the order's own entries carry the money.
    expect(await ledgerEntriesFor(String(order.transferId))).toEqual([]);
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('is in the partner’s history and hidden from another partner like an unknown id', async () => {
    const order = await completedOrder(partner);
    const listed = await history(partner);
    const mine = listed.data.find((item) => item.id === order.transferId);
    expect(mine?.status).toBe('COMPLETED');
    const other = await roomyPartner(t, 'Other partner');
    const foreign = await getTransfer(other, order.transferId);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ type: 'NotFoundException' });
    expect((await history(other)).data.map((item) => item.id)).not.toContain(order.transferId);
  });

  it('cannot be confirmed: it was never UNCONFIRMED', async () => {
    const order = await completedOrder(partner);
    const response = await signedFetch(t, partner, {
      method: 'POST',
      path: `/v3/transfers/${String(order.transferId)}/confirm`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ errorCode: 'transfer.notUnconfirmed' });
  });

  it('is FAILED with a reason when the chain rejects the delivery', async () => {
    const dest = `ethereum:${SANDBOX_FAILING_ADDRESSES.ethereum}`;
    const order = await completedOrder(partner, { dest });
    expect(order.status).toBe('FAILED');
    const { status, body } = await getTransfer(partner, order.transferId);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'FAILED', dest, blockchainTx: null, completedAt: null });
    expect(body.failureReason).toContain('could not be delivered');
    expectSameFigures(body, order);
    expect(body.statusHistories.map((h) => h.state)).toEqual(['INITIATED', 'PENDING', 'FAILED']);
    expect(await ledgerEntriesFor(String(order.transferId))).toEqual([]);
  });

  it('is COMPLETED without a blockchainTx for a custody account', async () => {
    const order = await completedOrder(partner, { dest: partner.accountId });
    expect(order.status).toBe('COMPLETE');
    const { body } = await getTransfer(partner, order.transferId);
    expect(body).toMatchObject({
      status: 'COMPLETED',
      dest: `account:${partner.accountId}`,
      blockchainTx: null,
    });
    expectSameFigures(body, order);
  });

  it('does not exist before the card is captured', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    const created = await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { trigger3ds: true }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { rows } = await t.database.db.query('SELECT id FROM transfers WHERE source = $1', [
      `walletorderholding:${String(created.body.id)}`,
    ]);
    expect(rows).toEqual([]);
    expect((await readOrder(t, partner, String(created.body.id))).transferId).toBeNull();
  });
});

describe('an order with an owner user', () => {
  let usersPartner: PartnerCredentials;
  let owner: string;
  let stranger: string;

  beforeAll(async () => {
    usersPartner = await createPartner(t, { usersApi: true, name: 'Users partner' });
    await setLimits(t, usersPartner.accountId, {
      STANDARD: { daily: '100000', weekly: '100000', yearly: '100000' },
    });
    owner = (await createUser(t, usersPartner)).id;
    stranger = (await createUser(t, usersPartner)).id;
  });

  it('is owned by the user, seen by it masqueraded, not by another user, and notifies subscribers', async () => {
    for (const subscribeTo of [`user:${owner}`, `account:${usersPartner.accountId}`]) {
      const subscribed = await postSigned(t, usersPartner, '/v3/subscriptions', {
        subscribeTo,
        notifyTarget: 'http://127.0.0.1:9/transfers',
      });
      expect(subscribed.status, await subscribed.clone().text()).toBe(200);
    }
    const order = await completedOrder(usersPartner, { owner: `user:${owner}` });
    expect(order.status).toBe('COMPLETE');
    const path = `/v3/transfers/${String(order.transferId)}`;

    const asOwner = await asUser(t, usersPartner, owner, 'GET', path);
    expect(asOwner.status).toBe(200);
    expect(await asOwner.json()).toMatchObject({ owner: `user:${owner}`, status: 'COMPLETED' });
    const ownerList = await asUser(t, usersPartner, owner, 'GET', '/v3/transfers');
    const ownerIds = ((await ownerList.json()) as { data: { id: string }[] }).data.map((item) => item.id);
    expect(ownerIds).toEqual([order.transferId]);

    const asStranger = await asUser(t, usersPartner, stranger, 'GET', path);
    expect(asStranger.status).toBe(404);
    expect((await getTransfer(usersPartner, order.transferId)).status).toBe(200);

    // One callback per matching subscription, queued when it was created: the user's subscription
    // names the transfer, the account's the account (docs/contract.md, "Subscriptions and callbacks").
    const triggered = async (trigger: string) =>
      (
        await t.database.db.query<{ body: string }>(
          'SELECT body FROM callback_deliveries WHERE trigger = $1',
          [trigger],
        )
      ).rows.map((row) => JSON.parse(String(row.body)) as unknown);
    const subscriptionId = expect.stringMatching(/^DA_/);
    const transferTrigger = `transfer:${String(order.transferId)}`;
    expect(await triggered(transferTrigger)).toEqual([{ subscriptionId, trigger: transferTrigger }]);
    const accountTrigger = `account:${usersPartner.accountId}`;
    expect(await triggered(accountTrigger)).toEqual([{ subscriptionId, trigger: accountTrigger }]);
  });
});
