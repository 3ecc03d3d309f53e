import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { createSubaccount } from '../identity/support.ts';
import {
  credit,
  moneyState,
  operator,
  startTransfersApp,
  type TransfersFixture,
} from '../transfers/support.ts';
import { createUser, TRANSFER_FIELDS } from '../users/support.ts';
import { createWallet, WALLET_ID, type WalletBody, walletCall } from './support.ts';

/** v2 wallets (docs/contract.md, "Wallets and v2 transfers", decisions 31-33). */

let f: TransfersFixture;
let other: PartnerCredentials;
let userId: string;
let subId: string;
beforeAll(async () => {
  f = await startTransfersApp();
  other = await createPartner(f.t, { usersApi: true, name: 'Other partner' });
  userId = (await createUser(f.t, f.partner, { fields: TRANSFER_FIELDS })).id;
  subId = (await createSubaccount(f.t, f.partner)).id;
});
afterAll(async () => f.t.close());

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

describe('POST /v2/wallets', () => {
  it('creates a wallet owned by the calling account, in the shape of the facts', async () => {
    const { t, partner } = f;
    const wallet = await createWallet(t, partner, {
      name: unique('main'),
      callbackUrl: 'http://127.0.0.1:9/wallet-events',
      notes: 'Treasury',
    });
    expect(wallet.id).toMatch(WALLET_ID);
    expect(wallet).toMatchObject({
      srn: `wallet:${wallet.id}`,
      owner: `account:${partner.accountId}`,
      status: null,
      type: 'DEFAULT',
      callbackUrl: 'http://127.0.0.1:9/wallet-events',
      notes: 'Treasury',
      balances: {},
      totalBalances: {},
      availableBalances: {},
      verificationData: null,
    });
    expect(wallet.pusherChannel).toMatch(/^[0-9a-f]{32}$/);
    expect(typeof wallet.createdAt).toBe('number');
    // Sandbox runs every chain, so the wallet gets an address on each, as an account or user would.
    expect(Object.keys(wallet.depositAddresses).sort()).toEqual(['AVAX', 'BTC', 'ETH', 'MATIC']);
    expect(Object.keys(wallet).sort()).toEqual(
      [
        'id',
        'srn',
        'name',
        'owner',
        'status',
        'type',
        'callbackUrl',
        'notes',
        'pusherChannel',
        'depositAddresses',
        'balances',
        'totalBalances',
        'availableBalances',
        'verificationData',
        'createdAt',
      ].sort(),
    );
    const read = await walletCall(t, partner, 'GET', `/v2/wallet/${wallet.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(wallet);
  });

  it('makes the masqueraded user or sub-account the owner', async () => {
    const { t, partner } = f;
    const forUser = await createWallet(t, partner, { name: 'savings', type: 'SAVINGS' }, `user:${userId}`);
    expect(forUser).toMatchObject({ owner: `user:${userId}`, type: 'SAVINGS' });
    const forSub = await createWallet(t, partner, { name: 'savings' }, subId);
    expect(forSub.owner).toBe(`account:${subId}`);
  });

  it('refuses a name the owner already uses, changing nothing; another owner may use it', async () => {
    const { t, partner } = f;
    const name = unique('dup');
    await createWallet(t, partner, { name });
    const before = await moneyState(t);
    const again = await walletCall(t, partner, 'POST', '/v2/wallets', { body: { name } });
    expect(again.status, again.text).toBe(400);
    expect(again.body).toMatchObject({ errorCode: 'validation.walletNameTaken', problematicField: 'name' });
    expect(await moneyState(t)).toEqual(before);
    await createWallet(t, partner, { name }, `user:${userId}`);
  });

  it.each([
    [{}, 'FieldRequiredException', 'name'],
    [{ name: '' }, 'ValidationException', 'name'],
    [{ name: 'x', type: 'CHECKING' }, 'ValidationException', 'type'],
    [{ name: 'x', callbackUrl: 'http://169.254.169.254/latest' }, 'ValidationException', 'callbackUrl'],
    [{ name: 'x', notes: 'n'.repeat(1001) }, 'ValidationException', 'notes'],
  ])('refuses %j naming the field, changing nothing', async (body, type, field) => {
    const { t, partner } = f;
    const before = await moneyState(t);
    const refused = await walletCall(t, partner, 'POST', '/v2/wallets', { body });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ type, problematicField: field });
    expect(await moneyState(t)).toEqual(before);
  });

  it('replays the stored answer for the same Idempotency-Key', async () => {
    const { t, partner } = f;
    const body = { name: unique('idem') };
    const headers = { 'idempotency-key': unique('key') };
    const first = await walletCall(t, partner, 'POST', '/v2/wallets', { body, headers });
    const second = await walletCall(t, partner, 'POST', '/v2/wallets', { body, headers });
    expect(first.status, first.text).toBe(200);
    expect(second.body).toEqual(first.body);
  });
});

describe('who sees a wallet', () => {
  it('a master sees every wallet of its partner; a user or sub-account only its own; another partner none', async () => {
    const { t, partner } = f;
    const mine = await createWallet(t, partner, { name: unique('seen') });
    const users = await createWallet(t, partner, { name: unique('seen') }, `user:${userId}`);
    expect((await walletCall(t, partner, 'GET', `/v2/wallet/${users.id}`)).status).toBe(200);
    const asUser = await walletCall(t, partner, 'GET', `/v2/wallet/${mine.id}`, {
      masqueradeAs: `user:${userId}`,
    });
    expect(asUser.status).toBe(404);
    const asSub = await walletCall(t, partner, 'GET', `/v2/wallet/${users.id}`, { masqueradeAs: subId });
    expect(asSub.status).toBe(404);
    const foreign = await walletCall(t, other, 'GET', `/v2/wallet/${mine.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.type).toBe('NotFoundException');

    const userList = await walletCall(t, partner, 'GET', '/v2/wallets?limit=100', {
      masqueradeAs: `user:${userId}`,
    });
    const owners = new Set((userList.body.data as WalletBody[]).map((w) => w.owner));
    expect([...owners]).toEqual([`user:${userId}`]);
    const otherList = await walletCall(t, other, 'GET', '/v2/wallets');
    expect(otherList.body).toEqual({ data: [] });
  });

  it('GET /v2/wallet?name= finds the acting party’s own wallet of that name', async () => {
    const { t, partner } = f;
    const name = unique('named');
    const mine = await createWallet(t, partner, { name });
    const users = await createWallet(t, partner, { name }, `user:${userId}`);
    const found = await walletCall(t, partner, 'GET', `/v2/wallet?name=${name}`);
    expect(found.body.id).toBe(mine.id);
    const asUser = await walletCall(t, partner, 'GET', `/v2/wallet?name=${name}`, {
      masqueradeAs: `user:${userId}`,
    });
    expect(asUser.body.id).toBe(users.id);
    expect((await walletCall(t, partner, 'GET', '/v2/wallet?name=nobody-has-this')).status).toBe(404);
  });

  it('GET /v2/wallets pages with limit and offset, oldest first', async () => {
    const { t } = f;
    const partner = await createPartner(t, { name: 'Pager' });
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createWallet(t, partner, { name: `w${i}` }));
    const page = await walletCall(t, partner, 'GET', '/v2/wallets?limit=2&offset=1');
    expect(page.status, page.text).toBe(200);
    expect((page.body.data as WalletBody[]).map((w) => w.id)).toEqual([made[1]!.id, made[2]!.id]);
    // Each wallet of the page carries its own deposit addresses, as a read of that wallet does.
    expect((page.body.data as WalletBody[]).map((w) => w.depositAddresses)).toEqual([
      made[1]!.depositAddresses,
      made[2]!.depositAddresses,
    ]);
    expect(made[1]!.depositAddresses).not.toEqual(made[2]!.depositAddresses);
    expect((await walletCall(t, partner, 'GET', '/v2/wallets?limit=101')).status).toBe(400);
  });
});

describe('POST /v2/wallets/batch (decision 32)', () => {
  it('creates every wallet and answers them in order', async () => {
    const { t, partner } = f;
    const names = [unique('batch'), unique('batch')];
    const created = await walletCall(t, partner, 'POST', '/v2/wallets/batch', {
      body: { wallets: [{ name: names[0] }, { name: names[1], type: 'ENTERPRISE' }] },
      masqueradeAs: `user:${userId}`,
    });
    expect(created.status, created.text).toBe(200);
    const wallets = created.body as unknown as WalletBody[];
    expect(wallets.map((w) => [w.name, w.type, w.owner])).toEqual([
      [names[0], 'DEFAULT', `user:${userId}`],
      [names[1], 'ENTERPRISE', `user:${userId}`],
    ]);
  });

  it('refuses the whole batch listing every bad wallet, and stores none', async () => {
    const { t, partner } = f;
    const taken = unique('taken');
    await createWallet(t, partner, { name: taken });
    const fresh = unique('fresh');
    const before = await moneyState(t);
    const refused = await walletCall(t, partner, 'POST', '/v2/wallets/batch', {
      body: {
        wallets: [
          { name: fresh },
          { name: 'x', type: 'BOGUS' },
          { name: taken },
          { notes: 'no name' },
          { name: fresh },
        ],
      },
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ type: 'ValidationException', problematicField: 'wallets[1].type' });
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ index: 1, problematicField: 'wallets[1].type' }),
      expect.objectContaining({
        index: 2,
        problematicField: 'wallets[2].name',
        errorCode: 'validation.walletNameTaken',
      }),
      expect.objectContaining({
        index: 3,
        problematicField: 'wallets[3].name',
        errorCode: 'validation.fieldRequired',
      }),
      expect.objectContaining({
        index: 4,
        problematicField: 'wallets[4].name',
        errorCode: 'validation.walletNameTaken',
      }),
    ]);
    expect(await moneyState(t)).toEqual(before);
    expect((await walletCall(t, partner, 'GET', `/v2/wallet?name=${fresh}`)).status).toBe(404);
  });

  it('refuses an empty batch', async () => {
    const refused = await walletCall(f.t, f.partner, 'POST', '/v2/wallets/batch', { body: { wallets: [] } });
    expect(refused.status).toBe(400);
  });
});

describe('POST /v2/wallet/{id}/update', () => {
  it('changes the fields sent, clears those sent as null, keeps the rest', async () => {
    const { t, partner } = f;
    const wallet = await createWallet(t, partner, {
      name: unique('upd'),
      notes: 'old',
      callbackUrl: 'http://127.0.0.1:9/x',
    });
    const name = unique('renamed');
    const updated = await walletCall(t, partner, 'POST', `/v2/wallet/${wallet.id}/update`, {
      body: { name, notes: null, verificationData: { level: 2, checked: true } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({
      id: wallet.id,
      name,
      notes: null,
      callbackUrl: 'http://127.0.0.1:9/x',
      verificationData: { level: 2, checked: true },
    });
    expect((await walletCall(t, partner, 'GET', `/v2/wallet?name=${name}`)).body.id).toBe(wallet.id);
  });

  it('refuses a name the owner uses for another wallet, and a wallet it cannot see', async () => {
    const { t, partner } = f;
    const first = await createWallet(t, partner, { name: unique('a') });
    const second = await createWallet(t, partner, { name: unique('b') });
    const before = await moneyState(t);
    const clash = await walletCall(t, partner, 'POST', `/v2/wallet/${second.id}/update`, {
      body: { name: first.name },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.errorCode).toBe('validation.walletNameTaken');
    const foreign = await walletCall(t, other, 'POST', `/v2/wallet/${second.id}/update`, {
      body: { notes: 'mine' },
    });
    expect(foreign.status).toBe(404);
    expect(await moneyState(t)).toEqual(before);
  });
});

describe('DELETE /v2/wallet/{id} (decision 33)', () => {
  it('refuses a wallet holding money, changing nothing', async () => {
    const { t, partner } = f;
    const wallet = await createWallet(t, partner, { name: unique('full') });
    await credit(t, wallet.srn, 'USD', '5');
    const before = await moneyState(t);
    const refused = await walletCall(t, partner, 'DELETE', `/v2/wallet/${wallet.id}`);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.errorCode).toBe('validation.walletHasBalance');
    expect(await moneyState(t)).toEqual(before);
  });

  it('deletes an empty wallet: gone from reads, lists and credits, its name free again', async () => {
    const { t, partner } = f;
    const name = unique('empty');
    const wallet = await createWallet(t, partner, { name });
    const deleted = await walletCall(t, partner, 'DELETE', `/v2/wallet/${wallet.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await walletCall(t, partner, 'GET', `/v2/wallet/${wallet.id}`)).status).toBe(404);
    const list = await walletCall(t, partner, 'GET', '/v2/wallets?limit=100');
    expect((list.body.data as WalletBody[]).map((w) => w.id)).not.toContain(wallet.id);
    const refusedCredit = await operator(t, 'POST', '/operator/v1/ledger/credits', {
      owner: wallet.srn,
      currency: 'USD',
      amount: '1',
    });
    expect(refusedCredit.status).toBe(400);
    const again = await createWallet(t, partner, { name });
    expect(again.id).not.toBe(wallet.id);
  });
});

describe('the ledger knows wallet owners', () => {
  it('the operator credits a wallet, which shows it as balances', async () => {
    const { t, partner } = f;
    const wallet = await createWallet(t, partner, { name: unique('funded') });
    await credit(t, wallet.srn, 'USD', '12.5');
    const read = await walletCall(t, partner, 'GET', `/v2/wallet/${wallet.id}`);
    expect(read.body).toMatchObject({
      balances: { USD: 12.5 },
      totalBalances: { USD: 12.5 },
      availableBalances: { USD: 12.5 },
    });
  });

  it('a sandbox deposit to a wallet’s deposit address credits the wallet', async () => {
    const { t, partner } = f;
    const wallet = await createWallet(t, partner, { name: unique('deposit') });
    const deposit = await operator(t, 'POST', '/operator/v1/sandbox/deposits', {
      dest: `ethereum:${wallet.depositAddresses.ETH}`,
      currency: 'ETH',
      amount: '0.25',
    });
    expect(deposit.status, await deposit.clone().text()).toBe(200);
    const read = await walletCall(t, partner, 'GET', `/v2/wallet/${wallet.id}`);
    expect(read.body.totalBalances).toEqual({ ETH: 0.25 });
  });
});
