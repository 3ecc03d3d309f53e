import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { createSubaccount } from '../identity/support.ts';
import {
  approvedUser,
  balances,
  call,
  credit,
  expectLedgerSound,
  moneyState,
  startTransfersApp,
  type TransfersFixture,
  transfer,
} from '../transfers/support.ts';
import { createUser } from '../users/support.ts';
import { createWallet, type WalletBody, walletCall } from './support.ts';

/** `wallet:WA_…` as a transfer source and dest (docs/contract.md, decision 34). */

let f: TransfersFixture;
let other: PartnerCredentials;
let subId: string;
beforeAll(async () => {
  f = await startTransfersApp();
  other = await createPartner(f.t, { usersApi: true, name: 'Other partner' });
  subId = (await createSubaccount(f.t, f.partner)).id;
});
afterAll(async () => {
  await expectLedgerSound(f.t);
  await f.t.close();
});

let counter = 0;
async function fundedWallet(amount: string, masqueradeAs?: string, partner = f.partner): Promise<WalletBody> {
  const wallet = await createWallet(f.t, partner, { name: `w-${++counter}` }, masqueradeAs);
  if (amount !== '0') await credit(f.t, wallet.srn, 'USD', amount);
  return wallet;
}

function masqueraded(masqueradeAs: string | undefined, method: string, path: string, body?: unknown) {
  return walletCall(f.t, f.partner, method, path, {
    ...(body !== undefined ? { body } : {}),
    ...(masqueradeAs ? { masqueradeAs } : {}),
  });
}

describe('a wallet pays', () => {
  it('the master draws on its own wallet into a sub-account (autoConfirm)', async () => {
    const { t, partner } = f;
    const wallet = await fundedWallet('50');
    const sent = await transfer(t, partner, null, {
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '20',
      dest: `account:${subId}`,
      autoConfirm: true,
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ status: 'COMPLETED', source: wallet.srn, dest: `account:${subId}` });
    expect((await balances(t, wallet.srn)).total).toEqual({ USD: '30' });
    const read = await walletCall(t, partner, 'GET', `/v2/wallet/${wallet.id}`);
    expect(read.body.balances).toEqual({ USD: 30 });
  });

  it('a user draws on its own wallet, and the master on the user’s wallet', async () => {
    const { t, partner } = f;
    const userId = await approvedUser(t, partner);
    const wallet = await fundedWallet('40', `user:${userId}`);
    const byUser = await transfer(t, partner, userId, {
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: `user:${userId}`,
      autoConfirm: true,
    });
    expect(byUser.status, byUser.text).toBe(200);
    const byMaster = await transfer(t, partner, null, {
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: `account:${partner.accountId}`,
      autoConfirm: true,
    });
    expect(byMaster.status, byMaster.text).toBe(200);
    expect((await balances(t, wallet.srn)).total).toEqual({ USD: '20' });
  });

  it('an UNCONFIRMED transfer from a wallet holds the amount and its owner confirms it', async () => {
    const { t, partner } = f;
    const wallet = await fundedWallet('30', subId);
    const created = await masqueraded(subId, 'POST', '/v3/transfers', {
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '12',
      dest: `account:${partner.accountId}`,
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.status).toBe('UNCONFIRMED');
    expect(await balances(t, wallet.srn)).toEqual({ total: { USD: '30' }, available: { USD: '18' } });
    const id = created.body.id as string;
    const confirmed = await masqueraded(subId, 'POST', `/v3/transfers/${id}/confirm`, {});
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.status).toBe('COMPLETED');
    expect(await balances(t, wallet.srn)).toEqual({ total: { USD: '18' }, available: { USD: '18' } });
  });

  it('refuses anyone but the owner or the master, moving nothing', async () => {
    const { t, partner } = f;
    const mastersWallet = await fundedWallet('25');
    const userId = await approvedUser(t, partner);
    const before = await moneyState(t);
    for (const drawer of [subId, `user:${userId}`]) {
      const refused = await masqueraded(drawer, 'POST', '/v3/transfers', {
        source: mastersWallet.srn,
        sourceCurrency: 'USD',
        sourceAmount: '5',
        dest: drawer.startsWith('user:') ? drawer : `account:${drawer}`,
        autoConfirm: true,
      });
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.errorCode).toBe('accessDenied.forbidden');
    }
    // Another partner's master cannot reach it either (the same 403 as an unknown wallet).
    const foreign = await walletCall(t, other, 'POST', '/v3/transfers', {
      body: {
        source: mastersWallet.srn,
        sourceCurrency: 'USD',
        sourceAmount: '5',
        dest: `account:${other.accountId}`,
      },
    });
    expect(foreign.status).toBe(403);
    expect(await moneyState(t)).toEqual(before);
  });

  it('only the owner confirms: a sub-account that did not create it cannot', async () => {
    const { t, partner } = f;
    const wallet = await fundedWallet('10');
    const created = await transfer(t, partner, null, {
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '4',
      dest: `account:${subId}`,
    });
    expect(created.status, created.text).toBe(200);
    const refused = await masqueraded(subId, 'POST', `/v3/transfers/${created.body.id}/confirm`, {});
    expect(refused.status, refused.text).toBe(403);
    const confirmed = await masqueraded(undefined, 'POST', `/v3/transfers/${created.body.id}/confirm`, {});
    expect(confirmed.status, confirmed.text).toBe(200);
  });

  it('never overdraws: a wallet with 10 USD cannot send 11', async () => {
    const { t, partner } = f;
    const wallet = await fundedWallet('10');
    const before = await moneyState(t);
    for (const autoConfirm of [true, false]) {
      const refused = await transfer(t, partner, null, {
        source: wallet.srn,
        sourceCurrency: 'USD',
        sourceAmount: '11',
        dest: `account:${subId}`,
        autoConfirm,
      });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.type).toBe('InsufficientFundsException');
    }
    expect(await moneyState(t)).toEqual(before);
  });

  it('a user’s wallet carries the user’s standing: no APPROVED TRANSFER scope, no payment', async () => {
    const { t, partner } = f;
    const unapproved = (await createUser(t, partner, {})).id;
    const wallet = await fundedWallet('10', `user:${unapproved}`);
    const before = await moneyState(t);
    const refused = await transfer(t, partner, null, {
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '1',
      dest: `account:${subId}`,
      autoConfirm: true,
    });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.errorCode).toBe('accessDenied.scopeNotApproved');
    expect(await moneyState(t)).toEqual(before);
  });
});

describe('a wallet receives', () => {
  it('from the account, the user and another wallet, as v3 transfers', async () => {
    const { t, partner } = f;
    const dest = await fundedWallet('0');
    const source = await fundedWallet('5');
    await credit(t, `account:${partner.accountId}`, 'USD', '7');
    const fromAccount = await transfer(t, partner, null, {
      sourceCurrency: 'USD',
      sourceAmount: '7',
      dest: dest.srn,
      autoConfirm: true,
    });
    expect(fromAccount.status, fromAccount.text).toBe(200);
    const fromWallet = await transfer(t, partner, null, {
      source: source.srn,
      sourceCurrency: 'USD',
      sourceAmount: '5',
      dest: dest.srn,
      autoConfirm: true,
    });
    expect(fromWallet.status, fromWallet.text).toBe(200);
    expect((await balances(t, dest.srn)).total).toEqual({ USD: '12' });
  });

  it('refuses a wallet of another partner or a deleted one as dest, moving nothing', async () => {
    const { t, partner } = f;
    await credit(t, `account:${partner.accountId}`, 'USD', '3');
    const foreign = await createWallet(t, other, { name: 'theirs' });
    const gone = await fundedWallet('0');
    expect((await walletCall(t, partner, 'DELETE', `/v2/wallet/${gone.id}`)).status).toBe(200);
    const before = await moneyState(t);
    for (const dest of [foreign.srn, gone.srn, 'wallet:WA_ZZZZ2222222']) {
      const refused = await transfer(t, partner, null, {
        sourceCurrency: 'USD',
        sourceAmount: '1',
        dest,
        autoConfirm: true,
      });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.errorCode).toBe('validation.unknownDest');
    }
    expect(await moneyState(t)).toEqual(before);
  });

  it('a malformed wallet SRN is a clear 400 naming the field', async () => {
    const refused = await call(f.t, f.partner, null, 'POST', '/v3/transfers', {
      sourceCurrency: 'USD',
      sourceAmount: '1',
      dest: 'wallet:nope',
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { problematicField: string }).problematicField).toBe('dest');
  });
});
