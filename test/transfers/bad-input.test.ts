import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { aliceAndBob, call, moneyState, startTransfersApp, type TransfersFixture } from './support.ts';

let f: TransfersFixture;
let t: TestApp;
let partner: PartnerCredentials;
let alice: string;
let bob: string;
beforeAll(async () => {
  f = await startTransfersApp();
  ({ t, partner } = f);
  ({ alice, bob } = await aliceAndBob(t, partner, '100'));
});
afterAll(async () => f.t.close());

const BOB = 'user:BOB';
const ok = { sourceCurrency: 'USD', sourceAmount: 1, dest: BOB, autoConfirm: true };

describe('POST /v3/transfers refuses bad input with the envelope, changing nothing', () => {
  it.each([
    [{ ...ok, sourceCurrency: undefined }, 400, 'sourceCurrency'],
    [{ ...ok, dest: undefined }, 400, 'dest'],
    [{ ...ok, sourceAmount: undefined }, 400, 'sourceAmount'],
    [{ ...ok, destAmount: 1 }, 400, 'destAmount'],
    [{ ...ok, sourceAmount: 0 }, 400, 'sourceAmount'],
    [{ ...ok, sourceAmount: -1 }, 400, 'sourceAmount'],
    [{ ...ok, sourceAmount: '1.001' }, 400, 'sourceAmount'],
    [{ ...ok, sourceAmount: '1e2' }, 400, 'sourceAmount'],
    [{ ...ok, sourceAmount: 'NaN' }, 400, 'sourceAmount'],
    [{ ...ok, sourceAmount: true }, 400, 'sourceAmount'],
    [{ ...ok, sourceAmount: '9'.repeat(65) }, 400, 'sourceAmount'],
    [{ ...ok, sourceAmount: 1000 }, 400, undefined],
    [{ ...ok, sourceCurrency: 'XYZ' }, 400, 'sourceCurrency'],
    [{ ...ok, sourceCurrency: 'usd' }, 400, 'sourceCurrency'],
    [{ ...ok, destCurrency: 'XYZ' }, 400, 'destCurrency'],
    [{ ...ok, dest: 'user:US_NOTAREALID' }, 400, 'dest'],
    [{ ...ok, dest: 'account:AC_ZZZZZZZZZZZ' }, 400, 'dest'],
    [{ ...ok, dest: 'email:a@b.c' }, 400, 'dest'],
    [{ ...ok, dest: 'ethereum:0x123' }, 400, 'dest'],
    [{ ...ok, dest: 'bitcoin:tb1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq' }, 400, 'dest'],
    [{ ...ok, dest: 'bitcoin:tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' }, 400, 'dest'],
    [{ ...ok, dest: '<script>' }, 400, 'dest'],
    [{ ...ok, dest: 'x'.repeat(201) }, 400, 'dest'],
    [{ ...ok, dest: 'user:ALICE' }, 400, 'dest'],
    [{ ...ok, source: 'ethereum:0x52908400098527886E0F7030069857D2E4169EE7' }, 400, 'source'],
    [{ ...ok, source: 'user:BOB' }, 403, undefined],
    [{ ...ok, source: 'account:AC_ZZZZZZZZZZZ' }, 403, undefined],
    [{ ...ok, autoConfirm: 'yes' }, 400, 'autoConfirm'],
    [{ ...ok, preview: 1 }, 400, 'preview'],
    [{ ...ok, message: 'm'.repeat(1001) }, 400, 'message'],
    [{ ...ok, customId: '' }, 400, 'customId'],
    [{ ...ok, customId: 'c'.repeat(256) }, 400, 'customId'],
    [{ ...ok, notifyUrl: 'not a url' }, 400, 'notifyUrl'],
    [{ ...ok, notifyUrl: 'ftp://example.com/x' }, 400, 'notifyUrl'],
    ['[]', 400, undefined],
    ['{"sourceCurrency":', 400, undefined],
    ['', 400, undefined],
  ])('%j → %i %s', async (raw, status, field) => {
    const text =
      typeof raw === 'string'
        ? raw
        : JSON.stringify(raw).replaceAll('user:BOB', `user:${bob}`).replaceAll('user:ALICE', `user:${alice}`);
    const before = await moneyState(t);
    const response = await call(t, partner, alice, 'POST', '/v3/transfers', text);
    const answer = await response.json();
    expect(response.status, JSON.stringify(answer)).toBe(status);
    expect(answer).toMatchObject({
      language: 'en',
      exceptionId: expect.any(String),
      type: expect.any(String),
    });
    if (field) expect(answer.problematicField).toBe(field);
    expect(await moneyState(t)).toEqual(before);
  });

  it('refuses a raw __proto__ key', async () => {
    const before = await moneyState(t);
    const body = `{"sourceCurrency":"USD","sourceAmount":1,"dest":"user:${bob}","__proto__":{"x":1}}`;
    const response = await call(t, partner, alice, 'POST', '/v3/transfers', body);
    expect(response.status).toBe(400);
    expect(await moneyState(t)).toEqual(before);
  });

  it('needs credentials', async () => {
    const response = await fetch(`${t.baseUrl}/v3/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ok),
    });
    expect(response.status).toBe(401);
  });
});

describe('confirm, read and list refuse bad input', () => {
  it.each([
    ['POST', '/v3/transfers/TF_ZZZZZZZZZZZ/confirm', 404],
    ['POST', '/v3/transfers/nope/confirm', 400],
    ['POST', `/v3/transfers/TF_${'Z'.repeat(190)}/confirm`, 400],
    ['GET', '/v3/transfers/TF_ZZZZZZZZZZZ', 404],
    ['GET', '/v3/transfers/TF_ZZZ%00', 400],
    ['GET', '/v3/transfers?limit=0', 400],
    ['GET', '/v3/transfers?limit=101', 400],
    ['GET', '/v3/transfers?offset=-1', 400],
    ['GET', '/v3/transfers?length=abc', 400],
  ])('%s %s → %i', async (method, path, status) => {
    const before = await moneyState(t);
    const response = await call(t, partner, alice, method, path, method === 'POST' ? '' : undefined);
    const answer = await response.json();
    expect(response.status, JSON.stringify(answer)).toBe(status);
    expect(answer.exceptionId).toEqual(expect.any(String));
    expect(await moneyState(t)).toEqual(before);
  });

  it('refuses a confirm whose body names another transfer (decision 62)', async () => {
    const created = await call(t, partner, alice, 'POST', '/v3/transfers', {
      sourceCurrency: 'USD',
      sourceAmount: 1,
      dest: `user:${bob}`,
    });
    const { id } = await created.json();
    const before = await moneyState(t);
    const response = await call(t, partner, alice, 'POST', `/v3/transfers/${id}/confirm`, {
      transferId: 'TF_AAAAAAAAAAA',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ problematicField: 'transferId' });
    expect(await moneyState(t)).toEqual(before);
  });
});
