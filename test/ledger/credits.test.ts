import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLedger, balancesOf } from '../../src/ledger/service.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';

let t: TestApp;
let partner: PartnerCredentials;
beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterAll(async () => t.close());

const credit = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.baseUrl}/operator/v1/ledger/credits`, {
    method: 'POST',
    headers: { ...operatorHeaders(), ...headers },
    body: JSON.stringify(body),
  });

describe('POST /operator/v1/ledger/credits', () => {
  it('funds an account as one balanced entry against external:bank, audited', async () => {
    const owner = `account:${partner.accountId}`;
    const response = await credit({
      owner,
      currency: 'ETH',
      amount: '1.123456789012345678',
      memo: 'seed funds',
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ owner, currency: 'ETH' });
    // Exact on the wire: the decimal digits themselves, not a float's rounding of them.
    expect(text).toContain('"totalBalances":{"ETH":1.123456789012345678}');
    const balances = await balancesOf(t.database.db, owner);
    expect(balances.totalBalances.ETH?.toFixed()).toBe('1.123456789012345678');
    expect((await balancesOf(t.database.db, 'external:bank')).totalBalances.ETH?.toFixed()).toBe(
      '-1.123456789012345678',
    );
    const { rows } = await t.database.db.query(
      "SELECT target, detail FROM operator_audit WHERE action = 'POST /operator/v1/ledger/credits' AND outcome = 'ok'",
    );
    expect(rows).toEqual([
      { target: owner, detail: expect.objectContaining({ amount: '1.123456789012345678' }) },
    ]);
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('shows exact balances on GET of your own account (read with authentication), signed and bearer, and a sub-account its own', async () => {
    const own = await createPartner(t, { name: 'Exact balances' });
    const subResponse = await signedFetch(t, own, {
      method: 'POST',
      path: '/v3/accounts',
      body: JSON.stringify({ type: 'INDIVIDUAL', country: 'US', subaccount: true, profileFields: [] }),
    });
    expect(subResponse.status).toBe(200);
    const sub = (await subResponse.json()) as { id: string };
    for (const [owner, currency, amount] of [
      [`account:${own.accountId}`, 'ETH', '0.000000000000000001'],
      [`account:${own.accountId}`, 'USD', '123456789012345678.12'],
      [`account:${sub.id}`, 'BTC', '0.00000001'],
    ] as const) {
      expect((await credit({ owner, currency, amount })).status).toBe(200);
    }
    const expected = '"totalBalances":{"ETH":0.000000000000000001,"USD":123456789012345678.12}';
    const signed = await signedFetch(t, own, { path: `/v3/accounts/${own.accountId}` });
    expect(signed.status).toBe(200);
    expect(await signed.text()).toContain(expected);
    const bearer = await bearerFetch(t, own.secretKey, 'GET', `/v3/accounts/${own.accountId}`);
    expect(bearer.status).toBe(200);
    expect(await bearer.text()).toContain(expected);
    const subRead = await signedFetch(t, own, { path: `/v3/accounts/${sub.id}` });
    expect(subRead.status).toBe(200);
    expect(await subRead.text()).toContain('"totalBalances":{"BTC":0.00000001}');
    const masqueraded = await signedFetch(t, own, {
      path: `/v3/accounts/${own.accountId}?masqueradeAs=${sub.id}`,
    });
    expect(masqueraded.status).toBe(404);
  });

  it('replays an Idempotency-Key instead of crediting twice', async () => {
    const owner = `account:${partner.accountId}`;
    const body = { owner, currency: 'USD', amount: 25 };
    const first = await credit(body, { 'idempotency-key': 'credit-1' });
    const second = await credit(body, { 'idempotency-key': 'credit-1' });
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(await second.text()).toBe(await first.text());
    expect((await balancesOf(t.database.db, owner)).totalBalances.USD?.toFixed()).toBe('25');
  });

  it.each([
    [{ owner: 'account:AC_ZZZZZZZZZZZ', currency: 'USD', amount: '1' }, 'owner'],
    [{ owner: 'external:bank', currency: 'USD', amount: '1' }, 'owner'],
    [{ owner: 'house:fees', currency: 'USD', amount: '1' }, 'owner'],
    [{ owner: 'ACCOUNT', currency: 'XYZ', amount: '1' }, 'currency'],
    [{ owner: 'account:AC_X', currency: 'USD', amount: '0' }, 'amount'],
    [{ owner: 'account:AC_X', currency: 'USD', amount: '-5' }, 'amount'],
    [{ owner: 'account:AC_X', currency: 'USD', amount: '1.001' }, 'amount'],
    [{ owner: 'account:AC_X', currency: 'USD', amount: '1e5' }, 'amount'],
    [{ owner: 'account:AC_X', currency: 'USD', amount: 'NaN' }, 'amount'],
    [{ owner: 'account:AC_X', currency: 'USD' }, 'amount'],
    [{ owner: 'account:AC_X', currency: 'USD', amount: '1', extra: true }, 'extra'],
  ])('refuses %j naming %s, changing nothing', async (body, field) => {
    const before = await snapshotTables(t.database.db);
    const response = await credit(body);
    expect(response.status).toBe(400);
    expect((await response.json()).problematicField).toBe(field);
    expect(await snapshotTables(t.database.db)).toEqual(before);
  });

  it('requires the operator token', async () => {
    const response = await fetch(`${t.baseUrl}/operator/v1/ledger/credits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ owner: `account:${partner.accountId}`, currency: 'USD', amount: '1' }),
    });
    expect(response.status).toBe(401);
  });
});
