import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { createKey, createSubaccount } from '../identity/support.ts';
import { createUser } from '../users/support.ts';
import {
  call,
  credit,
  moneyState,
  operator,
  startTransfersApp,
  TRANSFER_FIELDS,
  type TransfersFixture,
  transfer,
} from './support.ts';

let f: TransfersFixture;
beforeAll(async () => {
  // Scopes wait for the operator here, so a user can be PENDING, APPROVED or CLOSED on demand.
  f = await startTransfersApp({ env: { RAMPART_SANDBOX_AUTO_APPROVE: 'false' } });
});
afterAll(async () => f.t.close());

async function userWithScope(decision: 'PENDING' | 'APPROVE' | 'CLOSE' | 'OPEN'): Promise<string> {
  const { t, partner } = f;
  const user = await createUser(t, partner, decision === 'OPEN' ? {} : { fields: TRANSFER_FIELDS });
  if (decision === 'APPROVE' || decision === 'CLOSE') {
    const response = await operator(t, 'POST', `/operator/v1/users/${user.id}/scopes/TRANSFER/review`, {
      decision,
    });
    expect(response.status).toBe(200);
  }
  await credit(t, `user:${user.id}`, 'USD', '100');
  return user.id;
}

describe('a user may transfer only with its TRANSFER scope APPROVED', () => {
  it.each([
    ['OPEN', 403, 'accessDenied.scopeNotApproved'],
    ['PENDING', 403, 'accessDenied.scopeNotApproved'],
    ['CLOSE', 403, 'accessDenied.userClosed'],
  ] as const)(
    'refuses a user whose scope is %s (%i %s), moving nothing',
    async (decision, status, errorCode) => {
      const { t, partner } = f;
      const payer = await userWithScope(decision);
      const payee = await userWithScope('APPROVE');
      for (const autoConfirm of [true, false]) {
        const before = await moneyState(t);
        const refused = await transfer(t, partner, payer, {
          sourceCurrency: 'USD',
          sourceAmount: 10,
          dest: `user:${payee}`,
          autoConfirm,
        });
        expect(refused.status, refused.text).toBe(status);
        expect(refused.body.errorCode).toBe(errorCode);
        expect(await moneyState(t)).toEqual(before);
      }
    },
  );

  it('refuses to confirm once the payer was closed after creating the transfer', async () => {
    const { t, partner } = f;
    const payer = await userWithScope('APPROVE');
    const payee = await userWithScope('APPROVE');
    const created = await transfer(t, partner, payer, {
      sourceCurrency: 'USD',
      sourceAmount: 10,
      dest: `user:${payee}`,
    });
    expect(created.body.status).toBe('UNCONFIRMED');
    await operator(t, 'POST', `/operator/v1/users/${payer}/scopes/TRANSFER/review`, { decision: 'CLOSE' });
    const before = await moneyState(t);
    const confirm = await call(t, partner, payer, 'POST', `/v3/transfers/${created.body.id}/confirm`);
    expect(confirm.status).toBe(403);
    expect(await moneyState(t)).toEqual(before);
  });

  it('refuses a closed payee and drawing on a user without masquerading as it', async () => {
    const { t, partner } = f;
    const payer = await userWithScope('APPROVE');
    const closed = await userWithScope('CLOSE');
    const before = await moneyState(t);
    const toClosed = await transfer(t, partner, payer, {
      sourceCurrency: 'USD',
      sourceAmount: 1,
      dest: `user:${closed}`,
      autoConfirm: true,
    });
    expect(toClosed.status).toBe(400);
    expect(toClosed.body.errorCode).toBe('validation.destClosed');
    const asPartner = await transfer(t, partner, null, {
      source: `user:${payer}`,
      sourceCurrency: 'USD',
      sourceAmount: 1,
      dest: `user:${closed}`,
    });
    expect(asPartner.status).toBe(403);
    expect(await moneyState(t)).toEqual(before);
  });
});

describe('only the payer (or the master account) confirms', () => {
  /** A sub-account of the partner with its own key. */
  async function subaccountWithKey(): Promise<PartnerCredentials> {
    const { t, partner } = f;
    const sub = await createSubaccount(t, partner);
    const key = await createKey(t, partner, {}, sub.id);
    return { accountId: sub.id, apiKey: key.apiKey, secretKey: key.secretKey };
  }
  const confirm = (as: PartnerCredentials, id: string, masqueradeAs?: string) =>
    call(
      f.t,
      as,
      null,
      'POST',
      `/v3/transfers/${id}/confirm${masqueradeAs ? `?masqueradeAs=${masqueradeAs}` : ''}`,
    );
  const statusOf = async (id: string) =>
    (await f.t.database.db.query('SELECT status FROM transfers WHERE id = $1', [id])).rows[0]?.status;

  it("refuses the sub-account that only receives its master's transfer, which stays UNCONFIRMED; the master confirms", async () => {
    const { t, partner } = f;
    const sub = await subaccountWithKey();
    const stranger = await subaccountWithKey();
    await credit(t, `account:${partner.accountId}`, 'USD', '100');
    const created = await transfer(t, partner, null, {
      sourceCurrency: 'USD',
      sourceAmount: 10,
      dest: `account:${sub.accountId}`,
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ status: 'UNCONFIRMED', source: `account:${partner.accountId}` });
    const before = await moneyState(t);
    // The payee sees it (GET answers 200), so the refusal is 403, not 404.
    expect((await call(t, sub, null, 'GET', `/v3/transfers/${created.body.id}`)).status).toBe(200);
    for (const refused of [
      await confirm(sub, created.body.id),
      await confirm(partner, created.body.id, sub.accountId),
    ]) {
      expect(refused.status).toBe(403);
      expect((await refused.json()).errorCode).toBe('accessDenied.forbidden');
    }
    // A sub-account that is no party does not see it at all: 404, as for a GET.
    expect((await confirm(stranger, created.body.id)).status).toBe(404);
    expect(await moneyState(t)).toEqual(before);
    expect(await statusOf(created.body.id)).toBe('UNCONFIRMED');

    const confirmed = await confirm(partner, created.body.id);
    expect(confirmed.status).toBe(200);
    expect((await confirmed.json()).status).toBe('COMPLETED');
  });

  it('lets a sub-account confirm what it pays, and its master confirm it too (as itself or masquerading)', async () => {
    const { t, partner } = f;
    const sub = await subaccountWithKey();
    await credit(t, `account:${sub.accountId}`, 'USD', '30');
    const fromSub = async () => {
      const created = await transfer(t, sub, null, {
        sourceCurrency: 'USD',
        sourceAmount: 10,
        dest: `account:${partner.accountId}`,
      });
      expect(created.body.status, created.text).toBe('UNCONFIRMED');
      return created.body.id;
    };
    for (const response of [
      await confirm(sub, await fromSub()),
      await confirm(partner, await fromSub()),
      await confirm(partner, await fromSub(), sub.accountId),
    ]) {
      expect(response.status).toBe(200);
      expect((await response.json()).status).toBe('COMPLETED');
    }
  });
});
