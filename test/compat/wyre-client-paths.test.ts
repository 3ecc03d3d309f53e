import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerCredentials } from '../helpers/partner.ts';
import type { Envelope } from '../identity/support.ts';
import {
  balances,
  credit,
  expectLedgerSound,
  startTransfersApp,
  type TransfersFixture,
} from '../transfers/support.ts';
import { JPEG, MEDIA } from '../users/fixtures.ts';
import { runUserJobs, TRANSFER_FIELDS, US_BANK_ACCOUNT } from '../users/support.ts';
import {
  CARDS,
  createOrder,
  ETH_ADDRESS,
  lockedReservation,
  orderBody,
  readOrder,
  setLimits,
  testCard,
  workerFor,
} from '../wallet-orders/support.ts';

/**
 * Every path issue 30 added, driven through Wyre's official Node client `@wyre/api` unchanged:
 * it signs `<base><path>?timestamp=…&format=json[&masqueradeAs=…]` plus the body (JSON, or a
 * Buffer sent raw with its own Content-Type), sends X-Api-Version: 2 and answers the parsed body,
 * rejecting with the parsed envelope on a non-2xx status (docs/contract.md "Every Wyre path").
 */

type Json = Record<string, unknown>;
interface WyreClientLike {
  get<T = Json>(path: string, params?: Record<string, unknown>): Promise<T>;
  post<T = Json>(path: string, body?: unknown, options?: { headers?: Record<string, string> }): Promise<T>;
  delete<T = Json>(path: string, body?: unknown): Promise<T>;
  masqueraded(target: string): WyreClientLike;
}
const { WyreClient } = createRequire(import.meta.url)('@wyre/api') as {
  WyreClient: new (config: { apiKey: string; secretKey: string; baseUrl: string }) => WyreClientLike;
};

interface Wallet {
  id: string;
  srn: string;
  name: string;
  owner: string;
  type: string;
  notes: string | null;
  verificationData: unknown;
  balances: Record<string, number>;
}
interface Transfer {
  id: string;
  status: string;
  source: string;
  dest: string;
  customId: string | null;
  destAmount: number;
}
interface PaymentMethod {
  id: string;
  srn: string;
  owner: string;
  status: string;
  linkType: string;
  last4Digits: string;
  blockchains: Record<string, string>;
}

let f: TransfersFixture;
let partner: PartnerCredentials;
let client: WyreClientLike;
const account = () => `account:${partner.accountId}`;
/** What arrived on the wire, to check the requests are the client's own. */
const seen: { url: string; version: unknown; contentType: unknown }[] = [];

beforeAll(async () => {
  f = await startTransfersApp({
    extend: (app) => {
      app.addHook('onRequest', async (request) => {
        const { headers } = request;
        seen.push({
          url: request.raw.url ?? '',
          version: headers['x-api-version'],
          contentType: headers['content-type'],
        });
      });
    },
  });
  partner = f.partner;
  // Room for the card orders of this file from the one test address.
  await setLimits(f.t, partner.accountId, {
    STANDARD: { daily: '100000', weekly: '100000', yearly: '100000' },
  });
  client = new WyreClient({ apiKey: partner.apiKey, secretKey: partner.secretKey, baseUrl: f.t.baseUrl });
});
afterAll(async () => {
  await expectLedgerSound(f.t);
  await f.t.close();
});

/** The envelope the client rejects with. */
const refusal = (call: Promise<unknown>) =>
  call.then(
    (answer) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(answer)}`);
    },
    (envelope: unknown) => envelope as Envelope,
  );

/** A user with TRANSFER approved (sandbox), made through the client. */
async function approvedUser(scopes = ['TRANSFER']): Promise<string> {
  const user = await client.post<{ id: string; scopes: Record<string, { status: string }> }>('/v3/users', {
    fields: TRANSFER_FIELDS,
    scopes,
  });
  expect(user.scopes.TRANSFER?.status).toBe('APPROVED');
  return user.id;
}

const total = async (owner: string) => (await balances(f.t, owner)).total.USD ?? '0';
const available = async (owner: string) => (await balances(f.t, owner)).available.USD ?? '0';

describe('v2 wallets', () => {
  it('creates, reads by id and by name, updates and deletes a wallet of the account', async () => {
    const wallet = await client.post<Wallet>('/v2/wallets', {
      name: 'wc-savings',
      type: 'SAVINGS',
      notes: 'n',
    });
    expect(wallet).toMatchObject({
      owner: account(),
      type: 'SAVINGS',
      notes: 'n',
      srn: `wallet:${wallet.id}`,
    });
    expect(wallet.id).toMatch(/^WA_[2-9A-HJ-NP-Z]{11}$/);
    expect(await client.get<Wallet>(`/v2/wallet/${wallet.id}`)).toEqual(wallet);
    expect((await client.get<Wallet>('/v2/wallet', { name: 'wc-savings' })).id).toBe(wallet.id);
    const updated = await client.post<Wallet>(`/v2/wallet/${wallet.id}/update`, {
      notes: null,
      verificationData: { ok: true },
    });
    expect(updated).toMatchObject({ id: wallet.id, notes: null, verificationData: { ok: true } });
    expect(await client.get<Wallet>(`/v2/wallet/${wallet.id}`)).toMatchObject({ notes: null });
    expect(await client.delete(`/v2/wallet/${wallet.id}`)).toEqual({});
    expect(await refusal(client.get(`/v2/wallet/${wallet.id}`))).toMatchObject({ type: 'NotFoundException' });
    const { rows } = await f.t.database.db.query('SELECT count(*)::int AS n FROM wallets WHERE id = $1', [
      wallet.id,
    ]);
    expect(rows[0].n).toBe(1); // deleted is closed, not forgotten: its ledger history stays
  });

  it('creates a batch and pages the list with limit and offset', async () => {
    const batch = await client.post<Wallet[]>('/v2/wallets/batch', {
      wallets: [{ name: 'wc-a' }, { name: 'wc-b', type: 'ENTERPRISE' }],
    });
    expect(batch.map((w) => [w.name, w.type, w.owner])).toEqual([
      ['wc-a', 'DEFAULT', account()],
      ['wc-b', 'ENTERPRISE', account()],
    ]);
    const all = await client.get<{ data: Wallet[] }>('/v2/wallets', { limit: 100 });
    const names = all.data.map((w) => w.name);
    expect(names.slice(-2)).toEqual(['wc-a', 'wc-b']);
    const page = await client.get<{ data: Wallet[] }>('/v2/wallets', { limit: 1, offset: names.length - 1 });
    expect(page.data.map((w) => w.id)).toEqual([batch[1]!.id]);
    const refused = await refusal(
      client.post('/v2/wallets/batch', { wallets: [{ name: 'fine' }, { name: '' }] }),
    );
    expect(refused).toMatchObject({ type: 'ValidationException', problematicField: 'wallets[1].name' });
    expect((await client.get<{ data: Wallet[] }>('/v2/wallets', { limit: 100 })).data).toHaveLength(
      names.length,
    );
  });

  it('creates a wallet masqueraded as a user, owned by the user', async () => {
    const userId = await approvedUser();
    const asUser = client.masqueraded(`user:${userId}`);
    const wallet = await asUser.post<Wallet>('/v2/wallets', { name: 'wc-user' });
    expect(seen.at(-1)).toEqual({
      url: expect.stringMatching(
        new RegExp(`^/v2/wallets\\?timestamp=\\d{13}&format=json&masqueradeAs=user%3A${userId}$`),
      ),
      version: '2',
      contentType: 'application/json',
    });
    expect(wallet.owner).toBe(`user:${userId}`);
    expect((await asUser.get<Wallet>(`/v2/wallet/${wallet.id}`)).owner).toBe(`user:${userId}`);
    const { rows } = await f.t.database.db.query('SELECT owner FROM wallets WHERE id = $1', [wallet.id]);
    expect(rows).toEqual([{ owner: `user:${userId}` }]);
  });

  it('moves money into and out of a wallet with POST /v3/transfers', async () => {
    await credit(f.t, account(), 'USD', '50');
    const wallet = await client.post<Wallet>('/v2/wallets', { name: 'wc-moves' });
    const into = await client.post<Transfer>('/v3/transfers', {
      source: account(),
      sourceCurrency: 'USD',
      sourceAmount: '30',
      dest: wallet.srn,
      autoConfirm: true,
    });
    expect(into).toMatchObject({ status: 'COMPLETED', dest: wallet.srn });
    const out = await client.post<Transfer>('/v3/transfers', {
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '12.5',
      dest: account(),
      autoConfirm: true,
    });
    expect(out).toMatchObject({ status: 'COMPLETED', source: wallet.srn });
    expect((await client.get<Wallet>(`/v2/wallet/${wallet.id}`)).balances).toEqual({ USD: 17.5 });
    expect(await total(wallet.srn)).toBe('17.5');
  });
});

describe('v2 transfers', () => {
  it('creates, reads, finds by customId, confirms and tracks a transfer; a quote moves nothing', async () => {
    const wallet = await client.post<Wallet>('/v2/wallets', { name: 'wc-payer' });
    await credit(f.t, wallet.srn, 'USD', '40');
    const before = await balances(f.t, wallet.srn);
    const quote = await client.post<Transfer>('/v2/quote', {
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      destCurrency: 'EUR',
      dest: account(),
    });
    expect(quote.status).toBe('PREVIEW');
    expect(await balances(f.t, wallet.srn)).toEqual(before);

    const created = await client.post<Transfer>('/v2/transfers', {
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: account(),
      customId: 'wc-v2',
    });
    expect(created).toMatchObject({ status: 'UNCONFIRMED', source: wallet.srn, customId: 'wc-v2' });
    expect(await available(wallet.srn)).toBe('30');
    expect(await client.get<Transfer>(`/v2/transfer/${created.id}`)).toEqual(created);
    expect((await client.get<Transfer>('/v2/transfer', { customId: 'wc-v2' })).id).toBe(created.id);
    expect((await client.post<Transfer>(`/v2/transfer/${created.id}/confirm`)).status).toBe('COMPLETED');
    expect(await total(wallet.srn)).toBe('30');
    const tracked = await client.get(`/v2/transfer/${created.id}/track`);
    expect(tracked).toMatchObject({
      transferId: created.id,
      from: `Wallet ${wallet.id}`,
      to: `Account ${partner.accountId}`,
      sourceAmount: 10,
      status: 'COMPLETED',
    });
    expect(tracked).not.toHaveProperty('owner');
  });
});

describe('v2 rates and the legacy account', () => {
  it('GET /v2/rates answers the v3 rates', async () => {
    const [v2, v3] = await Promise.all([client.get('/v2/rates'), client.get('/v3/rates')]);
    expect(Object.keys(v2).length).toBeGreaterThan(0);
    expect(v2).toEqual(v3);
  });

  it('GET /v2/account and /v2/account/{id} of a sub-account', async () => {
    await credit(f.t, account(), 'BTC', '0.5');
    const own = await client.get<{ id: string; srn: string; ledgers: Json[] }>('/v2/account');
    expect(own).toMatchObject({ id: partner.accountId, srn: account() });
    expect(own.ledgers).toContainEqual(expect.objectContaining({ currency: 'BTC', balance: 0.5 }));
    const sub = await client.post<{ id: string }>('/v3/accounts', {
      type: 'INDIVIDUAL',
      country: 'US',
      subaccount: true,
    });
    expect(await client.get(`/v2/account/${sub.id}`)).toMatchObject({ id: sub.id, srn: `account:${sub.id}` });
  });
});

describe('card orders and limits', () => {
  async function orderWith(number: string, extra: Json = {}) {
    const { reservation, amount } = await lockedReservation(f.t, partner);
    const created = await createOrder(
      f.t,
      partner,
      orderBody(partner, reservation, amount, { debitCard: testCard(number), ...extra }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return { id: String(created.body.id), amount: Number(amount) };
  }

  it('GET /v3/orders/{id}/full and GET /v3/orders/list', async () => {
    const { id: first } = await orderWith(CARDS.approve);
    const { id: second } = await orderWith(CARDS.mastercard);
    expect(await client.get(`/v3/orders/${first}/full`)).toMatchObject({
      id: first,
      status: 'RUNNING_CHECKS',
      email: 'ada@example.com',
      orderType: 'DOMESTIC',
      errorCategory: null,
      failureReason: null,
    });
    const page = await client.get<{ data: { id: string }[]; position: number; recordsTotal: number }>(
      '/v3/orders/list',
      { offset: 0, limit: 2 },
    );
    expect(page).toMatchObject({ position: 0 });
    expect(page.data.map((order) => order.id)).toEqual([second, first]);
  });

  it('GET /v3/debitcard/authorization/{orderId}/with-redirection', async () => {
    const { id: orderId } = await orderWith(CARDS.threeDs);
    const state = await client.get<{ authorization3dsUrl: string }>(
      `/v3/debitcard/authorization/${orderId}/with-redirection`,
    );
    expect(state).toMatchObject({ walletOrderId: orderId, smsNeeded: false, card2faNeeded: false });
    expect(state.authorization3dsUrl).toContain(`/sandbox/3ds/${orderId}/`);
  });

  it('GET /v3/limits, for the account and for a user by srn and masqueraded', async () => {
    const limits = await client.get<{ DEBIT_CARD: Record<string, Json> }>('/v3/limits');
    expect(Object.keys(limits).sort()).toEqual(['ACCOUNT', 'ACH', 'DEBIT_CARD']);
    expect(limits.DEBIT_CARD['24']).toEqual({
      USD: { in: 100000, out: null, availIn: expect.any(Number), availOut: null },
    });
    const userId = await approvedUser();
    // The user follows the partner's table; the order it buys is spent from its own window.
    const { amount } = await orderWith(CARDS.approve, { owner: `user:${userId}` });
    const bySrn = await client.get<{ DEBIT_CARD: Record<string, Json> }>('/v3/limits', {
      srn: `user:${userId}`,
    });
    expect(bySrn.DEBIT_CARD['24']).toEqual({
      USD: { in: 100000, out: null, availIn: Number((100000 - amount).toFixed(2)), availOut: null },
    });
    expect(await client.masqueraded(`user:${userId}`).get('/v3/limits')).toEqual(bySrn);
    const refused = await refusal(client.get('/v3/limits', { srn: 'user:nobody' }));
    expect(refused).toMatchObject({ type: 'ValidationException', problematicField: 'srn' });
  });

  it('POST /v3/apple-pay/process/partner makes an APPLE_PAY order that completes', async () => {
    const { reservation, amount } = await lockedReservation(f.t, partner);
    const answer = await client.post<{ id: string }>('/v3/apple-pay/process/partner', {
      partnerId: partner.accountId,
      payload: {
        orderRequest: {
          amount,
          reservationId: reservation,
          sourceCurrency: 'USD',
          destCurrency: 'ETH',
          dest: `ethereum:${ETH_ADDRESS}`,
          referrerAccountId: partner.accountId,
          referenceId: 'wyre-node-1',
        },
        paymentObject: {
          billingContact: {
            addressLines: ['123 Test Ave'],
            administrativeArea: 'OR',
            country: 'United States',
            countryCode: 'US',
            familyName: 'Lovelace',
            givenName: 'Ada',
            locality: 'Portland',
            postalCode: '97209',
            subAdministrativeArea: '',
            subLocality: '',
          },
          shippingContact: { emailAddress: 'ada@example.com', phoneNumber: '(415) 555-0100' },
          token: {
            paymentData: {
              version: 'EC_v1',
              data: 'ZW5jcnlwdGVk',
              signature: 'c2ln',
              header: { ephemeralPublicKey: 'a' },
            },
            paymentMethod: { displayName: 'Visa 1111', network: 'Visa', type: 'debit' },
            transactionIdentifier: '5394A1B2C3D4E5F6',
          },
        },
      },
    });
    expect(Object.keys(answer)).toEqual(['id']);
    expect(await readOrder(f.t, partner, answer.id)).toMatchObject({
      status: 'RUNNING_CHECKS',
      walletType: 'APPLE_PAY',
      reservationId: reservation,
      referenceId: 'wyre-node-1',
    });
    await workerFor(f.t).drain();
    expect((await readOrder(f.t, partner, answer.id)).status).toBe('COMPLETE');
  });
});

/** Wyre's Postman collection's wire request, as sent. */
const POSTMAN_WIRE = {
  paymentMethodType: 'INTERNATIONAL_TRANSFER',
  country: 'US',
  currency: 'USD',
  beneficiaryType: 'INDIVIDUAL',
  beneficiaryAddress: '112 Brannan St',
  beneficiaryAddress2: '',
  beneficiaryCity: 'San Francisco',
  beneficiaryState: 'CA',
  beneficiaryPostal: '94108',
  beneficiaryPhoneNumber: '+14102239203',
  beneficiaryDobDay: '15',
  beneficiaryDobMonth: '12',
  beneficiaryDobYear: '1989',
  paymentType: 'LOCAL_BANK_WIRE',
  firstNameOnAccount: 'Billy-Bob',
  lastNameOnAccount: 'Jones',
  accountNumber: '0000000000000',
  routingNumber: '0000000000',
  accountType: 'CHECKING',
  chargeablePM: 'true',
};

describe('payment methods', () => {
  it('takes the ACH shapes and the wire shape, lists, reads, attaches and deletes them', async () => {
    const shapes = [
      {
        publicToken: 'public-sandbox-8a3b5c7d|vzeNDwK7KQIm4yEog683uElbp9GRLEFXGK98D',
        paymentMethodType: 'LOCAL_TRANSFER',
        country: 'US',
      },
      { plaidProcessorToken: 'processor-sandbox-1234', paymentMethodType: 'LOCAL_TRANSFER', country: 'US' },
      { ...US_BANK_ACCOUNT },
    ];
    const made: PaymentMethod[] = [];
    for (const shape of shapes) made.push(await client.post<PaymentMethod>('/v2/paymentMethods', shape));
    expect(made.map((m) => [m.linkType, m.last4Digits, m.status, m.owner])).toEqual([
      ['LOCAL_TRANSFER', '0000', 'PENDING', account()],
      ['LOCAL_TRANSFER', '0000', 'PENDING', account()],
      ['LOCAL_TRANSFER', '6789', 'PENDING', account()],
    ]);
    const wire = await client.post<PaymentMethod>('/v2/paymentMethods', POSTMAN_WIRE);
    expect(wire).toMatchObject({ linkType: 'INTERNATIONAL_TRANSFER', last4Digits: '0000', owner: account() });
    await runUserJobs(f.t);
    const listed = await client.get<{ data: PaymentMethod[] }>('/v2/paymentMethods');
    expect(listed.data.map((m) => m.id).sort()).toEqual([...made, wire].map((m) => m.id).sort());
    const ach = made[2]!;
    expect(await client.get<PaymentMethod>(`/v2/paymentMethod/${ach.id}`)).toMatchObject({
      id: ach.id,
      status: 'ACTIVE',
      srn: `paymentmethod:${ach.id}`,
    });
    const attached = await client.post<PaymentMethod>(`/v2/paymentMethod/${ach.id}/attach`, {
      blockchain: 'ETH',
    });
    expect(attached.blockchains.ETH).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect((await client.get<PaymentMethod>(`/v2/paymentMethod/${ach.id}`)).blockchains).toEqual(
      attached.blockchains,
    );
    expect((await client.delete<PaymentMethod>(`/v2/paymentMethod/${made[0]!.id}`)).status).toBe('DISABLED');
    expect(await refusal(client.get(`/v2/paymentMethod/${made[0]!.id}`))).toMatchObject({
      type: 'NotFoundException',
    });
  });

  it('pays out to paymentmethod:PA_… and settles when the sandbox bank does', async () => {
    await credit(f.t, account(), 'USD', '200');
    const method = await client.post<PaymentMethod>('/v2/paymentMethods', {
      ...US_BANK_ACCOUNT,
      accountNumber: '000123450001',
    });
    await runUserJobs(f.t);
    const before = await total(account());
    const created = await client.post<Transfer>('/v3/transfers', {
      source: account(),
      sourceCurrency: 'USD',
      sourceAmount: '100',
      dest: method.srn,
      destCurrency: 'USD',
      autoConfirm: true,
    });
    expect(created).toMatchObject({ status: 'PENDING', dest: method.srn });
    expect(await total(account())).toBe(before);
    await f.runJobs();
    expect((await client.get<Transfer>(`/v3/transfers/${created.id}`)).status).toBe('COMPLETED');
    expect(Number(await total(account()))).toBe(Number(before) - 100);
  });

  it('pulls over ACH from paymentmethod:PA_…:ach, masqueraded as the user', async () => {
    const user = await approvedUser(['TRANSFER', 'ACH']);
    const asUser = client.masqueraded(`user:${user}`);
    const method = await asUser.post<PaymentMethod>('/v2/paymentMethods', {
      ...US_BANK_ACCOUNT,
      accountNumber: '000555555555',
    });
    expect(method.owner).toBe(`user:${user}`);
    await runUserJobs(f.t);
    const link = await asUser.get<{ verificationLinkUrl: string }>(`/v3/users/${user}/onboarding`);
    const submitted = await fetch(`${f.t.baseUrl}${new URL(link.verificationLinkUrl).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(submitted.status).toBe(200);
    const created = await asUser.post<Transfer>('/v3/transfers', {
      source: `paymentmethod:${method.id}:ach`,
      sourceCurrency: 'USD',
      sourceAmount: '100',
      dest: `user:${user}`,
      destCurrency: 'USD',
      autoConfirm: true,
    });
    expect(created).toMatchObject({ status: 'PENDING', source: `paymentmethod:${method.id}:ach` });
    expect(await available(`user:${user}`)).toBe('0');
    await f.runJobs();
    expect((await asUser.get<Transfer>(`/v3/transfers/${created.id}`)).status).toBe('COMPLETED');
    expect(Number(await available(`user:${user}`))).toBe(created.destAmount);
  });
});

describe('account document upload', () => {
  it('sends the raw bytes with their own Content-Type and stores them', async () => {
    const sub = await client.post<{ id: string }>('/v3/accounts', {
      type: 'INDIVIDUAL',
      country: 'US',
      subaccount: true,
    });
    // With a Content-Type other than JSON the client neither encodes the body nor parses the
    // answer: the Buffer goes out raw (and is signed raw), the Account comes back as JSON text.
    const text = await client.post<string>(
      `/v3/accounts/${sub.id}/individualGovernmentId?documentType=DRIVING_LICENSE&documentSubType=FRONT`,
      JPEG,
      { headers: { 'Content-Type': MEDIA.jpeg } },
    );
    expect(typeof text).toBe('string');
    expect(seen.at(-1)).toMatchObject({ version: '2', contentType: MEDIA.jpeg });
    const answer = JSON.parse(text) as { id: string; profileFields: { fieldId: string; value: unknown }[] };
    expect(answer.id).toBe(sub.id);
    const { rows } = await f.t.database.db.query(
      'SELECT id, field_id, doc_type, media_type, content FROM user_documents WHERE account_id = $1',
      [sub.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      field_id: 'individualGovernmentId',
      doc_type: 'DRIVING_LICENSE/FRONT',
      media_type: MEDIA.jpeg,
    });
    expect(Buffer.compare(rows[0].content, JPEG)).toBe(0);
    expect(answer.profileFields.find((field) => field.fieldId === 'individualGovernmentId')?.value).toEqual([
      rows[0].id,
    ]);
  });
});

describe('features Rampart does not offer answer the client the 501 envelope', () => {
  const CALLS: [method: 'get' | 'post', path: string, errorCode: string, feature: string][] = [
    ['post', '/v3/swaps', 'notImplemented.swaps', 'Swaps'],
    ['get', '/v3/swaps/SW_2222222222A', 'notImplemented.swaps', 'Swaps'],
    ['post', '/v3/swaps/ipCheck', 'notImplemented.swaps', 'Swaps'],
    ['get', '/v3/sep-24/transaction/TF_2222222222A', 'notImplemented.sep24', 'SEP-24'],
    ['post', '/v3/firewall/permit', 'notImplemented.firewallPermit', 'Firewall permits'],
  ];
  it.each(CALLS)('%s %s', async (method, path, errorCode, feature) => {
    const envelope = await refusal(
      method === 'get' ? client.get(path) : client.post(path, { ipAddress: '203.0.113.7' }),
    );
    expect(envelope).toMatchObject({
      type: 'NotImplementedException',
      errorCode,
      transient: false,
      language: 'en',
    });
    expect(envelope.message).toContain(feature);
  });
});
