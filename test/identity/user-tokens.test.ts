import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { approvedUser, credit, startTransfersApp, TRANSFER_FIELDS } from '../transfers/support.ts';
import { US_BANK_ACCOUNT } from '../users/support.ts';
import { createWallet } from '../wallets/support.ts';
import { createSubaccount, expectError, expectOk, rows, sessionSecret, snapshot } from './support.ts';

// A decentralized token tied to a user by POST /v3/users with partnerId, and confined to that
// user (docs/contract.md, decision 95), as Wyre's decentralized-authentication cookbook uses it.

let t: TestApp;
let partner: PartnerCredentials;
let bob: string;

beforeAll(async () => {
  const fixture = await startTransfersApp();
  t = fixture.t;
  partner = fixture.partner;
  bob = await approvedUser(t, partner);
});
afterAll(async () => t?.close());

const partnerRefOf = (accountId: string) => `PT_${accountId.slice(3)}`;

interface UserAnswer {
  id: string;
  partnerId: string;
  authenticatedAs?: string;
  fields: Record<string, { value: unknown; status: string }>;
  scopes: Record<string, { status: string }>;
  totalBalances: Record<string, number>;
}

async function newSession() {
  const secret = sessionSecret();
  const response = await fetch(`${t.baseUrl}/v2/sessions/auth/key?secretKey=${secret}`, { method: 'POST' });
  const answer = await expectOk<{ apiKey: string; authenticatedAs: null }>(response);
  return { secret, apiKey: answer.apiKey };
}

const attachToUser = (
  secret: string,
  partnerId: unknown,
  fields: Record<string, unknown> = TRANSFER_FIELDS,
) => bearerFetch(t, secret, 'POST', '/v3/users', { partnerId, fields, blockchains: ['ALL'] });

const keyRow = async (apiKey: string) =>
  (
    await rows<{ account_id: string | null; partner_id: string | null; user_id: string | null }>(
      t,
      'SELECT account_id, partner_id, user_id FROM api_keys WHERE api_key = $1',
      [apiKey],
    )
  )[0];

/** The cookbook's flow: a session token, then the user created with it and tied to it. */
async function userToken() {
  const session = await newSession();
  const user = await expectOk<UserAnswer>(
    await attachToUser(session.secret, partnerRefOf(partner.accountId)),
  );
  return { ...session, userId: user.id, user };
}

describe("the cookbook's flow: POST /v2/sessions/auth/key, then POST /v3/users with partnerId", () => {
  it('creates the user under the partner and ties the token to it, in the key row', async () => {
    const { apiKey, userId, user } = await userToken();
    expect(user).toMatchObject({
      id: expect.stringMatching(/^US_/),
      partnerId: partnerRefOf(partner.accountId),
      authenticatedAs: `user:${userId}`,
    });
    expect(user.scopes.TRANSFER?.status).toBe('APPROVED');
    expect(await keyRow(apiKey)).toEqual({
      account_id: partner.accountId,
      partner_id: partner.accountId,
      user_id: userId,
    });
    const [owner] = await rows(t, 'SELECT partner_id, owner_account_id FROM users WHERE id = $1', [userId]);
    expect(owner).toEqual({ partner_id: partner.accountId, owner_account_id: partner.accountId });
  });

  it('then reads and updates itself, with or without masqueradeAs naming itself', async () => {
    const { secret, userId } = await userToken();
    const read = await expectOk<UserAnswer>(await bearerFetch(t, secret, 'GET', `/v3/users/${userId}`));
    expect(read.id).toBe(userId);
    expect(read.authenticatedAs).toBeUndefined();
    await expectOk(await bearerFetch(t, secret, 'GET', `/v3/users/${userId}?masqueradeAs=user:${userId}`));
    const updated = await expectOk<UserAnswer>(
      await bearerFetch(t, secret, 'POST', `/v3/users/${userId}`, { fields: { email: 'crash@example.com' } }),
    );
    expect(updated.fields.email).toMatchObject({ value: 'crash@example.com', status: 'SUBMITTED' });
  });

  it('creates a payment method and a transfer from its own balance', async () => {
    const { secret, userId } = await userToken();
    const method = await expectOk<{ id: string; owner: string }>(
      await bearerFetch(t, secret, 'POST', '/v2/paymentMethods', US_BANK_ACCOUNT),
    );
    expect(method.id).toMatch(/^PA_/);
    const listed = await expectOk<{ data: { id: string }[] }>(
      await bearerFetch(t, secret, 'GET', '/v2/paymentMethods'),
    );
    expect(listed.data.map((pm) => pm.id)).toEqual([method.id]);
    await credit(t, `user:${userId}`, 'USD', '20');
    const transfer = await expectOk<{ status: string; source: string; owner: string }>(
      await bearerFetch(t, secret, 'POST', '/v3/transfers', {
        source: `user:${userId}`,
        sourceCurrency: 'USD',
        sourceAmount: '5',
        dest: `user:${bob}`,
        autoConfirm: true,
      }),
    );
    expect(transfer).toMatchObject({
      status: 'COMPLETED',
      source: `user:${userId}`,
      owner: `user:${userId}`,
    });
    const read = await expectOk<UserAnswer>(await bearerFetch(t, secret, 'GET', `/v3/users/${userId}`));
    expect(read.totalBalances).toEqual({ USD: 15 });
  });
});

describe('a user-tied token acts only as its user', () => {
  let token: Awaited<ReturnType<typeof userToken>>;
  let subaccountId: string;
  let bobWallet: string;

  beforeAll(async () => {
    token = await userToken();
    await credit(t, `user:${token.userId}`, 'USD', '10');
    subaccountId = (await createSubaccount(t, partner)).id;
    bobWallet = (await createWallet(t, partner, { name: `bob-${Date.now()}` }, `user:${bob}`)).id;
    await credit(t, `wallet:${bobWallet}`, 'USD', '10');
  });

  const refusedAsUserToken: [string, string, string, () => unknown][] = [
    ['mints an API key', 'POST', '/v2/apiKeys', () => ({ type: 'FULL', desc: 'mine' })],
    ['reads the partner account', 'GET', '/v3/accounts/{partner}', () => undefined],
    ['updates the partner account', 'POST', '/v3/accounts/{partner}', () => ({ profileFields: [] })],
    ['reads the partner account (v2)', 'GET', '/v2/account', () => undefined],
    [
      'creates an account',
      'POST',
      '/v3/accounts',
      () => ({ type: 'INDIVIDUAL', country: 'US', subaccount: true }),
    ],
    [
      'creates a subscription',
      'POST',
      '/v3/subscriptions',
      () => ({ srn: 'user:{self}', target: 'https://example.com/hook' }),
    ],
    [
      'reserves',
      'POST',
      '/v3/orders/reserve',
      () => ({ amount: '10', sourceCurrency: 'USD', destCurrency: 'ETH' }),
    ],
    ['reads another user of the same partner', 'GET', '/v3/users/{bob}', () => undefined],
    [
      'updates another user of the same partner',
      'POST',
      '/v3/users/{bob}',
      () => ({ fields: { email: 'x@y.z' } }),
    ],
    [
      'ties itself a second time',
      'POST',
      '/v3/users',
      () => ({ partnerId: partnerRefOf(partner.accountId) }),
    ],
    ["deletes the partner's API key", 'DELETE', '/v2/apiKey/{partnerKey}', () => undefined],
    ["lists the partner's subscriptions", 'GET', '/v3/subscriptions', () => undefined],
    ['creates wallets in a batch', 'POST', '/v2/wallets/batch', () => ({ wallets: [{ name: 'x' }] })],
  ];

  const fill = (text: string) =>
    text
      .replace('{partner}', partner.accountId)
      .replace('{partnerKey}', partner.apiKey)
      .replace('{bob}', bob)
      .replace('{self}', token.userId);

  for (const [what, method, template, body] of refusedAsUserToken) {
    it(`is refused (401 accessDenied.userToken, nothing changed) when it ${what}`, async () => {
      const before = await snapshot(t);
      const raw = body();
      const response = await bearerFetch(
        t,
        token.secret,
        method,
        fill(template),
        raw === undefined ? undefined : JSON.parse(fill(JSON.stringify(raw))),
      );
      await expectError(response, 401, 'AccessDeniedException', { errorCode: 'accessDenied.userToken' });
      expect(await snapshot(t)).toEqual(before);
    });
  }

  it('is refused a masqueradeAs naming another user or the partner’s sub-account (403, nothing changed)', async () => {
    const before = await snapshot(t);
    for (const target of [`user:${bob}`, `account:${subaccountId}`, subaccountId, partner.accountId]) {
      await expectError(
        await bearerFetch(t, token.secret, 'GET', `/v3/users/${token.userId}?masqueradeAs=${target}`),
        403,
        'AccessDeniedException',
      );
    }
    await expectError(
      await bearerFetch(
        t,
        token.secret,
        'POST',
        `/v2/paymentMethods?masqueradeAs=user:${bob}`,
        US_BANK_ACCOUNT,
      ),
      403,
      'AccessDeniedException',
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it("cannot draw on another user's wallet or balance (403, nothing moves)", async () => {
    const before = await snapshot(t);
    for (const source of [`wallet:${bobWallet}`, `user:${bob}`]) {
      const response = await bearerFetch(t, token.secret, 'POST', '/v3/transfers', {
        source,
        sourceCurrency: 'USD',
        sourceAmount: '1',
        dest: `user:${token.userId}`,
        autoConfirm: true,
      });
      await expectError(response, 403, 'AccessDeniedException', { errorCode: 'accessDenied.forbidden' });
    }
    const v2 = await bearerFetch(t, token.secret, 'POST', '/v2/transfers', {
      source: `wallet:${bobWallet}`,
      sourceCurrency: 'USD',
      sourceAmount: '1',
      dest: `user:${token.userId}`,
      autoConfirm: true,
    });
    await expectError(v2, 403, 'AccessDeniedException');
    expect(await snapshot(t)).toEqual(before);
  });

  it("lists only its own wallets, not another user's", async () => {
    const listed = await expectOk<{ data: { id: string }[] }>(
      await bearerFetch(t, token.secret, 'GET', '/v2/wallets'),
    );
    expect(listed.data.map((wallet) => wallet.id)).not.toContain(bobWallet);
  });
});

describe('tying refused', () => {
  const usersCount = async () =>
    Number((await rows<{ n: string }>(t, 'SELECT count(*) AS n FROM users'))[0]?.n);

  it('an unknown, malformed or missing partnerId is 400 validation.invalidPartnerId, nothing written', async () => {
    const { secret, apiKey } = await newSession();
    const before = await snapshot(t);
    for (const partnerId of ['PT_ZZZZ2222222', partner.accountId, 'PT_', undefined]) {
      await expectError(await attachToUser(secret, partnerId), 400, 'ValidationException', {
        errorCode: 'validation.invalidPartnerId',
        problematicField: 'partnerId',
      });
    }
    expect(await snapshot(t)).toEqual(before);
    expect(await keyRow(apiKey)).toEqual({ account_id: null, partner_id: null, user_id: null });
  });

  it('a partner without the Users API answers the same 400, nothing written', async () => {
    const closed = await createPartner(t, { usersApi: false });
    const { secret, apiKey } = await newSession();
    const before = await snapshot(t);
    await expectError(
      await attachToUser(secret, partnerRefOf(closed.accountId)),
      400,
      'ValidationException',
      {
        errorCode: 'validation.invalidPartnerId',
      },
    );
    expect(await snapshot(t)).toEqual(before);
    expect(await keyRow(apiKey)).toEqual({ account_id: null, partner_id: null, user_id: null });
  });

  it('a bad field is refused and the token stays untied', async () => {
    const { secret, apiKey } = await newSession();
    const users = await usersCount();
    await expectError(
      await attachToUser(secret, partnerRefOf(partner.accountId), { noSuchField: 1 }),
      400,
      'ValidationException',
    );
    expect(await usersCount()).toBe(users);
    expect(await keyRow(apiKey)).toEqual({ account_id: null, partner_id: null, user_id: null });
  });

  it('the same token sent twice at once is tied once: one user, the other call refused', async () => {
    const { secret, apiKey } = await newSession();
    const users = await usersCount();
    const answers = await Promise.all([
      attachToUser(secret, partnerRefOf(partner.accountId)),
      attachToUser(secret, partnerRefOf(partner.accountId)),
    ]);
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses[0]).toBe(200);
    expect([400, 401]).toContain(statuses[1]);
    expect(await usersCount()).toBe(users + 1);
    expect((await keyRow(apiKey))?.user_id).toMatch(/^US_/);
  });

  it('a token tied to an account is not tied to a user (403, nothing written)', async () => {
    const { secret } = await newSession();
    await expectOk(
      await bearerFetch(t, secret, 'POST', '/v3/accounts', { type: 'INDIVIDUAL', country: 'US' }),
    );
    const before = await snapshot(t);
    await expectError(
      await attachToUser(secret, partnerRefOf(partner.accountId)),
      403,
      'AccessDeniedException',
    );
    expect(await snapshot(t)).toEqual(before);
  });
});
