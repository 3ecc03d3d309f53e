import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FAILING_ADDRESSES } from '../../src/chains/sandbox-chain.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  advanceClock,
  aliceAndBob,
  approvedUser,
  balances,
  call,
  credit,
  expectLedgerSound,
  expireDueTransfers,
  startTransfersApp,
  type TransfersFixture,
  transfer,
} from './support.ts';

let f: TransfersFixture;
let t: TestApp;
let partner: PartnerCredentials;
let alice: string;
let bob: string;
const ETH_DEST = 'ethereum:0x52908400098527886E0F7030069857D2E4169EE7';

/** A confirmed 1 USD transfer from alice to bob, as alice. */
const oneDollarAliceToBob = () =>
  transfer(t, partner, alice, {
    sourceCurrency: 'USD',
    sourceAmount: 1,
    dest: `user:${bob}`,
    autoConfirm: true,
  });

beforeAll(async () => {
  f = await startTransfersApp();
  ({ t, partner } = f);
  ({ alice, bob } = await aliceAndBob(t, partner, '1000'));
  await credit(t, `account:${partner.accountId}`, 'USD', '500');
});
afterAll(async () => f.t.close());

describe('POST /v3/transfers between custody balances', () => {
  it('moves a confirmed user→user transfer at once, double-entry, and shows it on both balances', async () => {
    const created = await transfer(t, partner, alice, {
      source: `user:${alice}`,
      sourceCurrency: 'USD',
      sourceAmount: '10.25',
      dest: `user:${bob}`,
      autoConfirm: true,
      message: 'lunch',
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      status: 'COMPLETED',
      owner: `user:${alice}`,
      source: `user:${alice}`,
      dest: `user:${bob}`,
      sourceAmount: 10.25,
      destAmount: 10.25,
      exchangeRate: null,
      fees: { USD: 0 },
      totalFees: 0,
      message: 'lunch',
      customId: null,
      blockchainTx: null,
      failureReason: null,
    });
    expect(created.body.id).toMatch(/^TF_[2-9A-HJ-NP-Z]{11}$/);
    expect(created.body.statusHistories.map((h) => h.state)).toEqual(['INITIATED', 'PENDING', 'COMPLETED']);
    expect(await balances(t, `user:${bob}`)).toEqual({
      total: { USD: '10.25' },
      available: { USD: '10.25' },
    });
    // Both views show the ledger's balances.
    const bobView = await (await call(t, partner, bob, 'GET', `/v3/users/${bob}`)).json();
    expect(bobView.totalBalances).toEqual({ USD: 10.25 });
    const account = await (await call(t, partner, null, 'GET', `/v3/accounts/${partner.accountId}`)).json();
    expect(account.availableBalances).toEqual({ USD: 500 });
    await expectLedgerSound(t);
  });

  it('stores each status change as [id, state, time] and answers the whole entry; rows stored whole read the same', async () => {
    const created = await oneDollarAliceToBob();
    const id: string = created.body.id;
    const answered = created.body.statusHistories;
    expect(answered).toHaveLength(3);
    answered.forEach((entry: Record<string, unknown>, index: number) => {
      expect(entry).toEqual({
        id: expect.stringMatching(/^[2-9A-HJ-NP-Z]{11}$/),
        transferId: id,
        createdAt: created.body.createdAt,
        type: 'OUTGOING',
        statusOrder: [0, 200, 400][index],
        statusDetail: ['Initiating Transfer', 'Transfer Pending', 'Transfer Completed'][index],
        state: ['INITIATED', 'PENDING', 'COMPLETED'][index],
        failedState: null,
      });
    });
    const stored = await t.database.db.query<{ history: unknown[] }>(
      'SELECT status_history AS history FROM transfers WHERE id = $1',
      [id],
    );
    expect(stored.rows[0]!.history).toEqual(
      answered.map((entry: Record<string, unknown>) => [entry.id, entry.state, entry.createdAt]),
    );
    // A row written before compact entries holds them whole: answered as they are.
    await t.database.db.query('UPDATE transfers SET status_history = $2::jsonb WHERE id = $1', [
      id,
      JSON.stringify(answered),
    ]);
    const read = await (await call(t, partner, alice, 'GET', `/v3/transfers/${id}`)).json();
    expect(read.statusHistories).toEqual(answered);
    // Back where the other tests expect the balances.
    const back = await transfer(t, partner, bob, {
      sourceCurrency: 'USD',
      sourceAmount: 1,
      dest: `user:${alice}`,
      autoConfirm: true,
    });
    expect(back.status, back.text).toBe(200);
  });

  it('holds an UNCONFIRMED transfer until confirm, then settles the hold exactly once', async () => {
    const created = await transfer(t, partner, null, {
      sourceCurrency: 'USD',
      destAmount: 20,
      dest: `user:${bob}`,
    });
    expect(created.body).toMatchObject({ status: 'UNCONFIRMED', source: `account:${partner.accountId}` });
    expect(created.body.expiresAt - created.body.createdAt).toBe(15 * 60_000);
    const account = `account:${partner.accountId}`;
    expect(await balances(t, account)).toEqual({ total: { USD: '500' }, available: { USD: '480' } });
    const confirmed = await call(t, partner, null, 'POST', `/v3/transfers/${created.body.id}/confirm`);
    expect(confirmed.status).toBe(200);
    expect((await confirmed.json()).status).toBe('COMPLETED');
    expect(await balances(t, account)).toEqual({ total: { USD: '480' }, available: { USD: '480' } });
    const again = await call(t, partner, null, 'POST', `/v3/transfers/${created.body.id}/confirm`);
    expect(again.status).toBe(400);
    expect((await again.json()).errorCode).toBe('transfer.notUnconfirmed');
    await expectLedgerSound(t);
  });

  it('expires an UNCONFIRMED transfer by the sandbox clock and voids its hold', async () => {
    const created = await transfer(t, partner, alice, {
      sourceCurrency: 'USD',
      sourceAmount: 5,
      dest: `user:${bob}`,
    });
    expect(await balances(t, `user:${alice}`)).toMatchObject({ available: { USD: '984.75' } });
    await advanceClock(t, 15 * 60 + 1);
    const late = await call(t, partner, alice, 'POST', `/v3/transfers/${created.body.id}/confirm`);
    expect((await late.json()).errorCode).toBe('transfer.expired');
    expect(await expireDueTransfers(t.ctx)).toBe(1);
    const read = await (await call(t, partner, alice, 'GET', `/v3/transfers/${created.body.id}`)).json();
    expect(read.status).toBe('EXPIRED');
    expect(read.cancelledAt).toEqual(expect.any(Number));
    expect(await balances(t, `user:${alice}`)).toMatchObject({ available: { USD: '989.75' } });
    const { rows } = await t.database.db.query('SELECT state FROM ledger_holds WHERE reference = $1', [
      `transfer:${created.body.id}`,
    ]);
    expect(rows).toEqual([{ state: 'voided' }]);
  });

  it('previews without moving anything', async () => {
    const before = await balances(t, `user:${alice}`);
    const preview = await transfer(t, partner, alice, {
      sourceCurrency: 'USD',
      sourceAmount: 50,
      dest: `user:${bob}`,
      destCurrency: 'EUR',
      preview: true,
    });
    expect(preview.body.status).toBe('PREVIEW');
    expect(preview.body.exchangeRate).toBeGreaterThan(0);
    expect(await balances(t, `user:${alice}`)).toEqual(before);
  });

  it('exchanges through the quote: fees to house:fees, conversion through house:fx', async () => {
    const created = await transfer(t, partner, alice, {
      sourceCurrency: 'USD',
      sourceAmount: 100,
      destCurrency: 'EUR',
      dest: `user:${bob}`,
      autoConfirm: true,
    });
    expect(created.status, created.text).toBe(200);
    const body = created.body;
    expect(body.fees.USD).toBe(0.5);
    expect(body.fees.EUR).toBe(0);
    expect(body.totalFees).toBe(0.5);
    expect(body.sourceAmount).toBe(100.5);
    expect((await balances(t, `user:${bob}`)).total.EUR).toBe(String(body.destAmount));
    expect((await balances(t, 'house:fees')).total.USD).toBe('0.5');
    expect((await balances(t, 'house:fx')).total).toEqual({ USD: '100', EUR: String(-body.destAmount) });
    await expectLedgerSound(t);
  });

  it('queues the creation callback in the creating transaction (implicit subscription for notifyUrl)', async () => {
    const created = await transfer(t, partner, alice, {
      sourceCurrency: 'USD',
      sourceAmount: 1,
      dest: `user:${bob}`,
      notifyUrl: 'http://127.0.0.1:9/callbacks',
    });
    expect(created.status, created.text).toBe(200);
    const { rows } = await t.database.db.query(
      'SELECT trigger, url FROM callback_deliveries WHERE trigger = $1',
      [`transfer:${created.body.id}`],
    );
    expect(rows).toEqual([{ trigger: `transfer:${created.body.id}`, url: 'http://127.0.0.1:9/callbacks' }]);
  });

  it('refuses customId reuse within a partner', async () => {
    const body = {
      sourceCurrency: 'USD',
      sourceAmount: 1,
      dest: `user:${bob}`,
      autoConfirm: true,
      customId: 'order-77',
    };
    expect((await transfer(t, partner, alice, body)).status).toBe(200);
    const before = await balances(t, `user:${alice}`);
    const second = await transfer(t, partner, alice, body);
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({
      errorCode: 'validation.duplicateCustomId',
      problematicField: 'customId',
    });
    expect(await balances(t, `user:${alice}`)).toEqual(before);
  });

  it('lets a real transfer take the customId of a preview: previews are quotes, not transfers', async () => {
    const body = { sourceCurrency: 'USD', sourceAmount: 1, dest: `user:${bob}`, customId: 'quoted-9' };
    const preview = await transfer(t, partner, alice, { ...body, preview: true });
    expect(preview.body.status).toBe('PREVIEW');
    const real = await transfer(t, partner, alice, { ...body, autoConfirm: true });
    expect(real.status, real.text).toBe(200);
    const again = await transfer(t, partner, alice, { ...body, autoConfirm: true });
    expect(again.body).toMatchObject({
      errorCode: 'validation.duplicateCustomId',
      problematicField: 'customId',
    });
  });

  it('replays an Idempotency-Key instead of moving twice', async () => {
    const body = { sourceCurrency: 'USD', sourceAmount: 2, dest: `user:${bob}`, autoConfirm: true };
    const first = await transfer(t, partner, alice, body, { 'idempotency-key': 'tf-1' });
    const second = await transfer(t, partner, alice, body, { 'idempotency-key': 'tf-1' });
    expect(second.text).toBe(first.text);
    const { rows } = await t.database.db.query('SELECT count(*)::int AS n FROM transfers WHERE id = $1', [
      first.body.id,
    ]);
    expect(rows[0].n).toBe(1);
  });
});

describe('withdrawals through the sandbox chain', () => {
  it('goes PENDING, then COMPLETED with a BlockchainTx once the chain confirms (exactly once)', async () => {
    await credit(t, `user:${alice}`, 'ETH', '1');
    const created = await transfer(t, partner, alice, {
      sourceCurrency: 'ETH',
      sourceAmount: '0.5',
      dest: ETH_DEST,
      autoConfirm: true,
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      status: 'PENDING',
      dest: ETH_DEST,
      fees: { ETH: 0.0004 },
      totalFees: 0.0004,
    });
    expect(created.body.sourceAmount).toBe(0.5004);
    expect(await f.runJobs()).toBeGreaterThan(0);
    const read = await (await call(t, partner, alice, 'GET', `/v3/transfers/${created.body.id}`)).json();
    expect(read.status).toBe('COMPLETED');
    expect(read.blockchainTx).toMatchObject({
      id: expect.stringMatching(/^TR_/),
      networkTxId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      direction: 'OUTGOING',
      amount: 0.5,
      networkFee: 0.0004,
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      currency: 'ETH',
      twinTxId: null,
    });
    expect((await balances(t, 'external:chain:ethereum')).total.ETH).toBe('0.5004');
    expect(await f.runJobs()).toBe(0);
    await expectLedgerSound(t);
  });

  it('returns the funds, fees included, when the chain fails the send', async () => {
    const before = await balances(t, `user:${alice}`);
    const created = await transfer(t, partner, alice, {
      sourceCurrency: 'ETH',
      sourceAmount: '0.1',
      dest: `ethereum:${SANDBOX_FAILING_ADDRESSES.ethereum}`,
      autoConfirm: true,
    });
    expect(created.body.status).toBe('PENDING');
    await f.runJobs();
    const read = await (await call(t, partner, alice, 'GET', `/v3/transfers/${created.body.id}`)).json();
    expect(read).toMatchObject({
      status: 'FAILED',
      failureReason: expect.stringContaining('failing address'),
    });
    expect(await balances(t, `user:${alice}`)).toEqual(before);
    await expectLedgerSound(t);
  });
});

describe('who may transfer and who sees what', () => {
  it('keeps a user to its own transfers, and a partner to its own', async () => {
    const mine = await oneDollarAliceToBob();
    const carol = await approvedUser(t, partner);
    expect((await call(t, partner, carol, 'GET', `/v3/transfers/${mine.body.id}`)).status).toBe(404);
    expect((await call(t, partner, bob, 'GET', `/v3/transfers/${mine.body.id}`)).status).toBe(200);
    const list = await (await call(t, partner, carol, 'GET', '/v3/transfers')).json();
    expect(list).toEqual({ data: [], position: 0, recordsTotal: 0, recordsFiltered: 0 });
    const other = await createPartner(t, { name: 'Other' });
    expect((await call(t, other, null, 'GET', `/v3/transfers/${mine.body.id}`)).status).toBe(404);
    // Confirming is the payer's: the payee cannot confirm someone else's transfer.
    const pending = await transfer(t, partner, alice, {
      sourceCurrency: 'USD',
      sourceAmount: 1,
      dest: `user:${bob}`,
    });
    expect((await call(t, partner, bob, 'POST', `/v3/transfers/${pending.body.id}/confirm`)).status).toBe(
      403,
    );
  });

  it('pages the history with offset/limit and offset/length, newest first', async () => {
    const all = await (await call(t, partner, null, 'GET', '/v3/transfers?limit=100')).json();
    expect(all.recordsTotal).toBeGreaterThan(5);
    expect(all.data.some((tf: { status: string }) => tf.status === 'PREVIEW')).toBe(false);
    const page = await (await call(t, partner, null, 'GET', '/v3/transfers?offset=2&length=3')).json();
    expect(page.position).toBe(2);
    expect(page.data.map((tf: { id: string }) => tf.id)).toEqual(
      all.data.slice(2, 5).map((tf: { id: string }) => tf.id),
    );
    const sorted = [...all.data].sort((a, b) => b.createdAt - a.createdAt);
    expect(all.data.map((tf: { createdAt: number }) => tf.createdAt)).toEqual(
      sorted.map((tf) => tf.createdAt),
    );
  });
});
