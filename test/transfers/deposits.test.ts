import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import {
  approvedUser,
  balances,
  call,
  depositAddresses,
  expectLedgerSound,
  moneyState,
  operator,
  startTransfersApp,
  type TransfersFixture,
} from './support.ts';

let f: TransfersFixture;
let t: TestApp;
let partner: PartnerCredentials;
let userId: string;
let addresses: Record<string, string>;
beforeAll(async () => {
  f = await startTransfersApp();
  ({ t, partner } = f);
  userId = await approvedUser(t, partner);
  addresses = await depositAddresses(t, partner, userId);
});
afterAll(async () => f.t.close());

const deposit = (body: unknown, headers: Record<string, string> = {}) =>
  operator(t, 'POST', '/operator/v1/sandbox/deposits', body, headers);

describe('POST /operator/v1/sandbox/deposits', () => {
  it('credits the owner of a deposit address from external:chain, audited', async () => {
    const response = await deposit({ dest: addresses.ETH, currency: 'ETH', amount: '1.5' });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      owner: `user:${userId}`,
      chain: 'ethereum',
      currency: 'ETH',
      amount: 1.5,
      totalBalances: { ETH: 1.5 },
    });
    // As a chain SRN, and a token the chain carries to the same address.
    const usdc = await deposit({ dest: `ethereum:${addresses.ETH}`, currency: 'USDC', amount: 25 });
    expect(usdc.status).toBe(200);
    expect(await balances(t, `user:${userId}`)).toEqual({
      total: { ETH: '1.5', USDC: '25' },
      available: { ETH: '1.5', USDC: '25' },
    });
    expect((await balances(t, 'external:chain:ethereum')).total).toEqual({ ETH: '-1.5', USDC: '-25' });
    const { rows } = await t.database.db.query(
      "SELECT target FROM operator_audit WHERE action = 'POST /operator/v1/sandbox/deposits' AND outcome = 'ok'",
    );
    expect(rows).toEqual([{ target: `user:${userId}` }, { target: `user:${userId}` }]);
    const user = await call(t, partner, userId, 'GET', `/v3/users/${userId}`);
    expect((await user.json()).availableBalances).toEqual({ ETH: 1.5, USDC: 25 });
    await expectLedgerSound(t);
  });

  it('replays an Idempotency-Key instead of crediting twice', async () => {
    const body = { dest: addresses.BTC, currency: 'BTC', amount: '0.01' };
    const first = await deposit(body, { 'idempotency-key': 'dep-1' });
    const second = await deposit(body, { 'idempotency-key': 'dep-1' });
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(await second.text()).toBe(await first.text());
    expect((await balances(t, `user:${userId}`)).total.BTC).toBe('0.01');
  });

  it.each([
    [{ dest: '0x0000000000000000000000000000000000000001', currency: 'ETH', amount: 1 }, 404, undefined],
    [{ dest: 'ethereum:nowhere', currency: 'ETH', amount: 1 }, 404, undefined],
    [{ dest: 'dogecoin:abc', currency: 'ETH', amount: 1 }, 404, undefined],
    [{ dest: 'matic:ADDRESS:ETH', currency: 'MATIC', amount: 1 }, 404, undefined],
    [{ dest: 'ADDRESS:BTC', currency: 'ETH', amount: 1 }, 400, 'currency'],
    [{ dest: 'ADDRESS:ETH', currency: 'XYZ', amount: 1 }, 400, 'currency'],
    [{ dest: 'ADDRESS:ETH', currency: 'ETH', amount: 0 }, 400, 'amount'],
    [{ dest: 'ADDRESS:ETH', currency: 'ETH', amount: '-1' }, 400, 'amount'],
    [{ dest: 'ADDRESS:ETH', currency: 'ETH', amount: '1e3' }, 400, 'amount'],
    [{ dest: 'ADDRESS:BTC', currency: 'BTC', amount: '0.000000001' }, 400, 'amount'],
    [{ dest: 'ADDRESS:ETH', currency: 'ETH', amount: true }, 400, 'amount'],
    [{ dest: 'ADDRESS:ETH', currency: 'ETH' }, 400, 'amount'],
    [{ currency: 'ETH', amount: 1 }, 400, 'dest'],
    [{ dest: 'ADDRESS:ETH', currency: 'ETH', amount: 1, owner: 'x' }, 400, 'owner'],
    [{ dest: 'x'.repeat(201), currency: 'ETH', amount: 1 }, 400, 'dest'],
    ['[1,2]', 400, undefined],
    ['{"dest":', 400, undefined],
  ])('refuses %j with %i, changing nothing', async (raw, status, field) => {
    const body =
      typeof raw === 'string'
        ? raw
        : JSON.parse(
            JSON.stringify(raw).replace(/ADDRESS:([A-Z]+)/, (_, c: string) => addresses[c] as string),
          );
    const before = await moneyState(t);
    const response = await deposit(body);
    const answer = await response.json();
    expect(response.status, JSON.stringify(answer)).toBe(status);
    expect(answer.exceptionId).toEqual(expect.any(String));
    if (field) expect(answer.problematicField).toBe(field);
    expect(await moneyState(t)).toEqual(before);
  });

  it('needs the operator token', async () => {
    const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/deposits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dest: addresses.ETH, currency: 'ETH', amount: 1 }),
    });
    expect(response.status).toBe(401);
  });
});

describe('in production', () => {
  it('answers 403 accessDenied.sandboxOnly', async () => {
    const prod = await startTransfersApp({ env: { RAMPART_ENV: 'production' } });
    try {
      const response = await operator(prod.t, 'POST', '/operator/v1/sandbox/deposits', {
        dest: addresses.ETH,
        currency: 'ETH',
        amount: 1,
      });
      expect(response.status).toBe(403);
      expect((await response.json()).errorCode).toBe('accessDenied.sandboxOnly');
    } finally {
      await prod.t.close();
    }
  });
});
