import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PaymentMethod, RampartClient } from '../../sdk/src/index.js';
import { isClabe } from '../../src/users/bank-account.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { expectError, expectOk } from '../identity/support.ts';
import { asUser, createUser, runUserJobs, US_BANK_ACCOUNT, userState } from './support.ts';

/**
 * Payment methods at account level (docs/contract.md "Payment methods and bank transfers",
 * decisions 50 to 53): the shapes Wyre clients send, through the SDK where it has the call.
 */
let t: TestApp;
let partner: PartnerCredentials;
let client: RampartClient;
const logLines: string[] = [];

beforeAll(async () => {
  t = await startTestApp({
    env: { LOG_LEVEL: 'debug' },
    logStream: { write: (line: string) => void logLines.push(line) },
  });
  partner = await createPartner(t, { usersApi: true });
  client = new RampartClient({
    baseUrl: t.baseUrl,
    auth: { type: 'signature', apiKey: partner.apiKey, secretKey: partner.secretKey },
  });
});
afterAll(async () => t?.close());

const post = (body: unknown, by = partner) =>
  signedFetch(t, by, { method: 'POST', path: '/v2/paymentMethods', body: JSON.stringify(body) });

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

describe('account-level payment methods through the SDK', () => {
  let method: PaymentMethod;

  it('are created without masqueradeAs, owned by the calling account, PENDING then ACTIVE', async () => {
    method = await client.paymentMethods.create({ ...US_BANK_ACCOUNT });
    expect(method).toMatchObject({
      owner: `account:${partner.accountId}`,
      status: 'PENDING',
      linkType: 'LOCAL_TRANSFER',
      last4Digits: '6789',
      srn: `paymentmethod:${method.id}`,
      blockchains: {},
    });
    expect(await runUserJobs(t)).toBe(1);
    expect((await client.paymentMethods.get(method.id)).status).toBe('ACTIVE');
  });

  it('are listed as {data: […]} for their account, and not for a user of it', async () => {
    const page = await client.paymentMethods.list();
    expect(page.data.map((m) => m.id)).toEqual([method.id]);
    const user = await createUser(t, partner);
    const asTheUser = await expectOk<{ data: unknown[] }>(
      await asUser(t, partner, user.id, 'GET', '/v2/paymentMethods'),
    );
    expect(asTheUser.data).toEqual([]);
    await expectError(
      await asUser(t, partner, user.id, 'GET', `/v2/paymentMethod/${method.id}`),
      404,
      'NotFoundException',
    );
  });

  it('a user’s method stays the user’s: the account without masqueradeAs does not see it', async () => {
    const user = await createUser(t, partner);
    const own = await expectOk<PaymentMethod>(
      await asUser(t, partner, user.id, 'POST', '/v2/paymentMethods', US_BANK_ACCOUNT),
    );
    expect(own.owner).toBe(`user:${user.id}`);
    await expectError(
      await signedFetch(t, partner, { method: 'GET', path: `/v2/paymentMethod/${own.id}` }),
      404,
      'NotFoundException',
    );
  });

  it('another partner cannot read or delete it', async () => {
    const other = await createPartner(t, { name: 'Other partner' });
    for (const method_ of ['GET', 'DELETE']) {
      await expectError(
        await signedFetch(t, other, { method: method_, path: `/v2/paymentMethod/${method.id}` }),
        404,
        'NotFoundException',
      );
    }
  });

  it('attach gives deposit addresses on the chains asked for, and keeps them when asked again', async () => {
    const attached = await client.paymentMethods.attach(method.id, { blockchain: 'BTC,ETH' });
    expect(Object.keys(attached.blockchains).sort()).toEqual(['BTC', 'ETH']);
    expect(attached.blockchains.ETH).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(attached.blockchains.BTC).toMatch(/^tb1/);
    const all = await client.paymentMethods.attach(method.id, { blockchain: 'ALL', muteMessages: true });
    expect(all.blockchains).toMatchObject(attached.blockchains);
    expect(Object.keys(all.blockchains).length).toBeGreaterThan(2);
    expect((await client.paymentMethods.get(method.id)).blockchains).toEqual(all.blockchains);
  });

  it('attach refuses a chain Rampart does not run, changing nothing', async () => {
    const before = await userState(t);
    await expectError(
      await signedFetch(t, partner, {
        method: 'POST',
        path: `/v2/paymentMethod/${method.id}/attach`,
        body: JSON.stringify({ blockchain: 'XLM' }),
      }),
      400,
      'ValidationException',
      { errorCode: 'validation.unsupportedBlockchain' },
    );
    expect(await userState(t)).toEqual(before);
  });

  it('delete disables it: gone from the list, 404 afterwards', async () => {
    expect((await client.paymentMethods.delete(method.id)).status).toBe('DISABLED');
    expect((await client.paymentMethods.list()).data.map((m) => m.id)).not.toContain(method.id);
    await expectError(
      await signedFetch(t, partner, { method: 'GET', path: `/v2/paymentMethod/${method.id}` }),
      404,
      'NotFoundException',
    );
  });
});

describe('the ACH shapes clients send', () => {
  it('publicToken "<token>|<accountId>" links Plaid’s sandbox account through the verifier', async () => {
    const created = await expectOk<PaymentMethod>(
      await post({
        publicToken: 'public-sandbox-8a3b5c7d|vzeNDwK7KQIm4yEog683uElbp9GRLEFXGK98D',
        paymentMethodType: 'LOCAL_TRANSFER',
        country: 'US',
      }),
    );
    expect(created).toMatchObject({ status: 'PENDING', last4Digits: '0000', linkType: 'LOCAL_TRANSFER' });
    await runUserJobs(t);
    expect((await client.paymentMethods.get(created.id)).status).toBe('ACTIVE');
  });

  it('plaidProcessorToken and plaidPublicToken are read the same way', async () => {
    for (const body of [
      { plaidProcessorToken: 'processor-sandbox-1234' },
      { plaidPublicToken: 'public-sandbox-99' },
    ]) {
      const created = await expectOk<PaymentMethod>(
        await post({ ...body, paymentMethodType: 'LOCAL_TRANSFER', country: 'US' }),
      );
      expect(created.last4Digits).toBe('0000');
    }
  });

  it('a token Plaid refuses is 400 and creates nothing', async () => {
    const before = await userState(t);
    await expectError(
      await post({
        publicToken: 'public-sandbox-invalid|acc',
        paymentMethodType: 'LOCAL_TRANSFER',
        country: 'US',
      }),
      400,
      'ValidationException',
      { errorCode: 'paymentMethod.tokenRefused' },
    );
    expect(await userState(t)).toEqual(before);
  });

  it('account and routing numbers keep the ABA check; a bad one changes nothing', async () => {
    const before = await userState(t);
    await expectError(
      await post({ ...US_BANK_ACCOUNT, routingNumber: '021000022' }),
      400,
      'ValidationException',
      {
        problematicField: 'routingNumber',
      },
    );
    await expectError(
      await post({ paymentMethodType: 'LOCAL_TRANSFER', country: 'US', accountNumber: '000123456789' }),
      400,
      'FieldRequiredException',
      { problematicField: 'routingNumber' },
    );
    expect(await userState(t)).toEqual(before);
  });

  it('the account number appears in no answer, no stored column in clear, and no log line', async () => {
    const created = await expectOk<PaymentMethod>(
      await post({ ...US_BANK_ACCOUNT, accountNumber: '987654321012' }),
    );
    expect(JSON.stringify(created)).not.toContain('987654321012');
    const { rows } = await t.database.db.query('SELECT * FROM payment_methods WHERE id = $1', [created.id]);
    expect(JSON.stringify(rows[0])).not.toContain('987654321012');
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain('987654321012');
  });
});

describe('the wire shape', () => {
  it('Wyre’s Postman wire request is accepted as a wire beneficiary, paid to and never drawn on', async () => {
    const created = await expectOk<PaymentMethod & Record<string, unknown>>(await post(POSTMAN_WIRE));
    expect(created).toMatchObject({
      owner: `account:${partner.accountId}`,
      linkType: 'INTERNATIONAL_TRANSFER',
      status: 'PENDING',
      last4Digits: '0000',
      name: 'Wire 0000',
      nameOnMethod: 'Billy-Bob Jones',
      supportsPayment: false,
      chargeableCurrencies: [],
      depositableCurrencies: ['USD'],
    });
    const { rows } = await t.database.db.query(
      'SELECT beneficiary, routing_number FROM payment_methods WHERE id = $1',
      [created.id],
    );
    // Only what paying the wire needs is kept: no phone, no date of birth.
    expect(rows[0].beneficiary).toEqual({
      beneficiaryAddress: '112 Brannan St',
      beneficiaryCity: 'San Francisco',
      beneficiaryState: 'CA',
      beneficiaryPostal: '94108',
    });
    expect(rows[0].routing_number).toBe('0000000000');
  });

  it('Mexico takes a CLABE with a valid check digit', async () => {
    const clabe = '002010077777777771';
    expect(isClabe(clabe)).toBe(true);
    const mx = {
      ...POSTMAN_WIRE,
      country: 'MX',
      currency: 'MXN',
      accountNumber: undefined,
      routingNumber: undefined,
      clabe,
    };
    const created = await expectOk<PaymentMethod>(await post(mx));
    expect(created).toMatchObject({ countryCode: 'MX', defaultCurrency: 'MXN', last4Digits: '7771' });
    await expectError(await post({ ...mx, clabe: '002010077777777772' }), 400, 'ValidationException', {
      problematicField: 'clabe',
    });
  });

  it('a corporate beneficiary may be named by its company alone', async () => {
    const created = await expectOk<PaymentMethod & { nameOnMethod: string }>(
      await post({
        ...POSTMAN_WIRE,
        beneficiaryType: 'CORPORATE',
        firstNameOnAccount: undefined,
        lastNameOnAccount: undefined,
        beneficiaryCompanyName: 'Acme Corp',
      }),
    );
    expect(created.nameOnMethod).toBe('Acme Corp');
  });

  it('an owner other than the caller is refused', async () => {
    await expectError(
      await post({ ...POSTMAN_WIRE, owner: 'account:AC_ZZZZ2222222' }),
      400,
      'ValidationException',
      {
        problematicField: 'owner',
      },
    );
  });
});

describe('production without a bank-account verifier', () => {
  let prod: TestApp;
  let prodPartner: PartnerCredentials;

  beforeAll(async () => {
    prod = await startTestApp({ ports: { bankAccounts: undefined } });
    prodPartner = await createPartner(prod);
  });
  afterAll(async () => prod?.close());

  it('a Plaid token answers 503 naming what is missing; account numbers still work', async () => {
    const body = await expectError(
      await signedFetch(prod, prodPartner, {
        method: 'POST',
        path: '/v2/paymentMethods',
        body: JSON.stringify({
          publicToken: 'public-x|acc',
          paymentMethodType: 'LOCAL_TRANSFER',
          country: 'US',
        }),
      }),
      503,
      'ServiceUnavailableException',
      { errorCode: 'paymentMethod.plaidUnavailable' },
    );
    expect(body.message).toContain('bankAccounts');
    const created = await expectOk<PaymentMethod>(
      await signedFetch(prod, prodPartner, {
        method: 'POST',
        path: '/v2/paymentMethods',
        body: JSON.stringify(US_BANK_ACCOUNT),
      }),
    );
    expect(created.status).toBe('PENDING');
  });
});
