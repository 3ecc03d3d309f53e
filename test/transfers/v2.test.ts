import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { createSubaccount } from '../identity/support.ts';
import { createWallet, walletCall } from '../wallets/support.ts';
import { balances, credit, startTransfersApp, type TransfersFixture } from './support.ts';

/** The v2 transfer paths, tracker and quote (docs/contract.md, decisions 35, 36, 39). */

let f: TransfersFixture;
let other: PartnerCredentials;
let subId: string;
beforeAll(async () => {
  f = await startTransfersApp();
  other = await createPartner(f.t, { name: 'Other partner' });
  subId = (await createSubaccount(f.t, f.partner)).id;
  await credit(f.t, `account:${f.partner.accountId}`, 'USD', '500');
});
afterAll(async () => f.t.close());

const v2 = (method: string, path: string, body?: unknown, masqueradeAs?: string, partner = f.partner) =>
  walletCall(f.t, partner, method, path, {
    ...(body !== undefined ? { body } : {}),
    ...(masqueradeAs ? { masqueradeAs } : {}),
  });

describe('POST /v2/transfers', () => {
  it('sends from the caller’s account by default and subscribes callbackUrl to the transfer', async () => {
    const { t, partner } = f;
    const wallet = await createWallet(t, partner, { name: 'v2-dest' });
    const created = await v2('POST', '/v2/transfers', {
      sourceCurrency: 'USD',
      sourceAmount: 15,
      dest: wallet.srn,
      callbackUrl: 'http://127.0.0.1:9/transfer-events',
      customId: 'v2-first',
      autoConfirm: true,
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      status: 'COMPLETED',
      source: `account:${partner.accountId}`,
      dest: wallet.srn,
      sourceAmount: 15,
      customId: 'v2-first',
    });
    expect((await balances(t, wallet.srn)).total).toEqual({ USD: '15' });
    const { rows } = await t.database.db.query(
      'SELECT notify_target FROM callback_subscriptions WHERE subscribe_to = $1',
      [`transfer:${created.body.id}`],
    );
    expect(rows).toEqual([{ notify_target: 'http://127.0.0.1:9/transfer-events' }]);
  });

  it('reads, finds by customId and confirms under the v2 paths', async () => {
    const created = await v2('POST', '/v2/transfers', {
      sourceCurrency: 'USD',
      sourceAmount: '3',
      dest: `account:${subId}`,
      customId: 'v2-confirm-me',
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.status).toBe('UNCONFIRMED');
    const id = created.body.id as string;
    const read = await v2('GET', `/v2/transfer/${id}`);
    expect(read.body).toEqual(created.body);
    const found = await v2('GET', '/v2/transfer?customId=v2-confirm-me');
    expect(found.status, found.text).toBe(200);
    expect(found.body.id).toBe(id);
    const confirmed = await v2('POST', `/v2/transfer/${id}/confirm`, {});
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.status).toBe('COMPLETED');
  });

  it('answers 404 for a customId nobody visible to the caller has', async () => {
    expect((await v2('GET', '/v2/transfer?customId=no-such-id')).status).toBe(404);
    const foreign = await v2('GET', '/v2/transfer?customId=v2-first', undefined, undefined, other);
    expect(foreign.status).toBe(404);
    expect((await v2('GET', '/v2/transfer/TF_ZZZZ2222222')).status).toBe(404);
  });
});

describe('POST /v2/quote (decision 39)', () => {
  it('answers a PREVIEW transfer and moves nothing', async () => {
    const { t, partner } = f;
    const before = await balances(t, `account:${partner.accountId}`);
    const quoted = await v2('POST', '/v2/quote', {
      sourceCurrency: 'USD',
      sourceAmount: '100',
      destCurrency: 'EUR',
      dest: `account:${subId}`,
    });
    expect(quoted.status, quoted.text).toBe(200);
    expect(quoted.body.status).toBe('PREVIEW');
    expect(quoted.body.exchangeRate).toEqual(expect.any(Number));
    expect(await balances(t, `account:${partner.accountId}`)).toEqual(before);
    const { rows } = await t.database.db.query(
      'SELECT count(*)::int AS n FROM ledger_holds WHERE reference = $1',
      [`transfer:${quoted.body.id}`],
    );
    expect(rows[0].n).toBe(0);
  });
});

describe('GET /v2/transfer/{id}/track (decision 36)', () => {
  const TRACK_KEYS = [
    'transferId',
    'feeCurrency',
    'fee',
    'fees',
    'sourceCurrency',
    'destCurrency',
    'sourceAmount',
    'destAmount',
    'destSrn',
    'from',
    'to',
    'rate',
    'customId',
    'status',
    'blockchainNetworkTx',
    'message',
    'transferHistoryEntryType',
    'successTimeline',
    'failedTimeline',
    'failureReason',
    'reversalReason',
  ];

  it('needs no credentials and shows nothing personal', async () => {
    const { t, partner } = f;
    const wallet = await createWallet(t, partner, { name: 'tracked' });
    const created = await v2('POST', '/v2/transfers', {
      sourceCurrency: 'USD',
      sourceAmount: '2',
      dest: wallet.srn,
      message: 'for the record',
      callbackUrl: 'http://127.0.0.1:9/secret-hook',
      autoConfirm: true,
    });
    expect(created.status, created.text).toBe(200);
    const response = await fetch(`${t.baseUrl}/v2/transfer/${created.body.id}/track`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const tracked = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(tracked).sort()).toEqual([...TRACK_KEYS].sort());
    expect(tracked).toMatchObject({
      transferId: created.body.id,
      feeCurrency: 'USD',
      fee: 0,
      sourceAmount: 2,
      destAmount: 2,
      destSrn: wallet.srn,
      from: `Account ${partner.accountId}`,
      to: `Wallet ${wallet.id}`,
      status: 'COMPLETED',
      message: 'for the record',
      transferHistoryEntryType: 'OUTGOING',
      failedTimeline: [],
      reversalReason: null,
    });
    expect((tracked.successTimeline as { state: string }[]).map((s) => s.state)).toEqual([
      'INITIATED',
      'PENDING',
      'COMPLETED',
    ]);
    expect(text).not.toContain('secret-hook');
    expect(text).not.toContain('owner');
  });

  it('answers 404 for a preview and an unknown id', async () => {
    const preview = await v2('POST', '/v2/quote', {
      sourceCurrency: 'USD',
      sourceAmount: '1',
      dest: `account:${subId}`,
    });
    expect(preview.status, preview.text).toBe(200);
    expect((await fetch(`${f.t.baseUrl}/v2/transfer/${preview.body.id}/track`)).status).toBe(404);
    expect((await fetch(`${f.t.baseUrl}/v2/transfer/TF_ZZZZ2222222/track`)).status).toBe(404);
  });
});

describe('GET /v2/rates (decision 37)', () => {
  it.each(['', '?as=MULTIPLIER', '?as=priced', '?format=json_numberstring'])(
    'answers exactly what GET /v3/rates%s answers, without credentials',
    async (query) => {
      const [v3, v2Rates] = await Promise.all([
        fetch(`${f.t.baseUrl}/v3/rates${query}`),
        fetch(`${f.t.baseUrl}/v2/rates${query}`),
      ]);
      expect(v2Rates.status).toBe(200);
      expect(await v2Rates.text()).toBe(await v3.text());
    },
  );

  it('refuses what v3 refuses', async () => {
    expect((await fetch(`${f.t.baseUrl}/v2/rates?as=SIDEWAYS`)).status).toBe(400);
  });
});
