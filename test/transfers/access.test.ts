import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
