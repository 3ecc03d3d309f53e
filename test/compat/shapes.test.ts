import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveriesOf } from '../callbacks/support.ts';
import { type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { approvedUser, credit, startTransfersApp, type TransfersFixture } from '../transfers/support.ts';
import { asUser, createUser } from '../users/support.ts';

/** Wyre's shapes real clients read (docs/contract.md, decisions 65 and 66, "Subscriptions and callbacks"). */

let fx: TransfersFixture;
let partner: PartnerCredentials;

beforeAll(async () => {
  fx = await startTransfersApp();
  partner = fx.partner;
});
afterAll(async () => fx?.t.close());

describe('transfer list items (decision 65)', () => {
  it('carry closedAt, sourceName, destName, blockchainTxId and destNickname', async () => {
    const bob = await approvedUser(fx.t, partner);
    await credit(fx.t, `account:${partner.accountId}`, 'USD', '100');
    const body = {
      source: `account:${partner.accountId}`,
      sourceCurrency: 'USD',
      sourceAmount: '5',
      dest: `user:${bob}`,
      destCurrency: 'USD',
    };
    const open = await signedFetch(fx.t, partner, {
      method: 'POST',
      path: '/v3/transfers',
      body: JSON.stringify(body),
    });
    expect(open.status).toBe(200);
    const done = await signedFetch(fx.t, partner, {
      method: 'POST',
      path: '/v3/transfers',
      body: JSON.stringify({ ...body, autoConfirm: true }),
    });
    const completed = (await done.json()) as { id: string; completedAt: number };
    const list = await signedFetch(fx.t, partner, { path: '/v3/transfers' });
    const items = ((await list.json()) as { data: Record<string, unknown>[] }).data;
    const closed = items.find((item) => item.id === completed.id);
    expect(closed).toMatchObject({
      closedAt: completed.completedAt,
      sourceName: `account:${partner.accountId}`,
      destName: `user:${bob}`,
      blockchainTxId: null,
      destNickname: null,
    });
    const unconfirmed = items.find((item) => item.status === 'UNCONFIRMED');
    expect(unconfirmed).toMatchObject({ closedAt: null, destNickname: null });
  });
});

describe('deposit addresses on every chain with a backend (decision 66)', () => {
  // Sandbox wires a simulated backend for every chain.
  const everyCurrency = ['AVAX', 'BTC', 'ETH', 'MATIC'];

  it('fills an account’s, including an account made before (on its first read)', async () => {
    const read = await signedFetch(fx.t, partner, { path: `/v3/accounts/${partner.accountId}` });
    const account = (await read.json()) as { depositAddresses: Record<string, string> };
    expect(Object.keys(account.depositAddresses).sort()).toEqual(everyCurrency);
    const again = await signedFetch(fx.t, partner, { path: `/v3/accounts/${partner.accountId}` });
    expect(((await again.json()) as typeof account).depositAddresses).toEqual(account.depositAddresses);
  });

  it('are read once per account: a later read of complete addresses asks the database nothing', async () => {
    const read = () => signedFetch(fx.t, partner, { path: `/v3/accounts/${partner.accountId}` });
    const first = ((await (await read()).json()) as { depositAddresses: Record<string, string> })
      .depositAddresses;
    await read();
    // Stored addresses are never rewritten; deleting them here only shows the read does not look.
    await fx.t.ctx.db.query('DELETE FROM deposit_addresses WHERE owner = $1', [
      `account:${partner.accountId}`,
    ]);
    const later = (await (await read()).json()) as { depositAddresses: Record<string, string> };
    expect(later.depositAddresses).toEqual(first);
    const { rows } = await fx.t.ctx.db.query('SELECT 1 FROM deposit_addresses WHERE owner = $1', [
      `account:${partner.accountId}`,
    ]);
    expect(rows).toEqual([]);
  });

  it('fills a new sub-account’s in the creation answer', async () => {
    const created = await signedFetch(fx.t, partner, {
      method: 'POST',
      path: '/v3/accounts',
      body: JSON.stringify({ type: 'INDIVIDUAL', country: 'US', subaccount: true }),
    });
    const account = (await created.json()) as { depositAddresses: Record<string, string> };
    expect(Object.keys(account.depositAddresses).sort()).toEqual(everyCurrency);
  });

  it('fills a user’s whatever blockchains it asked for, and a user made without them on read', async () => {
    const user = await createUser(fx.t, partner, { blockchains: ['BTC'] });
    expect(Object.keys(user.depositAddresses).sort()).toEqual(everyCurrency);
    const bare = await createUser(fx.t, partner, {});
    await fx.t.ctx.db.query('DELETE FROM deposit_addresses WHERE owner = $1', [`user:${bare.id}`]);
    const read = await asUser(fx.t, partner, bare.id, 'GET', `/v3/users/${bare.id}`);
    const view = (await read.json()) as { depositAddresses: Record<string, string> };
    expect(Object.keys(view.depositAddresses).sort()).toEqual(everyCurrency);
  });
});

describe('callback triggers', () => {
  it('names the account for an account subscription and the transfer otherwise', async () => {
    const bob = await approvedUser(fx.t, partner);
    await credit(fx.t, `account:${partner.accountId}`, 'USD', '10');
    const subscribe = (subscribeTo: string) =>
      signedFetch(fx.t, partner, {
        method: 'POST',
        path: '/v3/subscriptions',
        body: JSON.stringify({ subscribeTo, notifyTarget: `${fx.t.baseUrl}/hook` }),
      });
    const accountSubscription = await subscribe(`account:${partner.accountId}`);
    expect(accountSubscription.status, await accountSubscription.clone().text()).toBe(200);
    const userSubscription = await subscribe(`user:${bob}`);
    expect(userSubscription.status).toBe(200);
    const created = await signedFetch(fx.t, partner, {
      method: 'POST',
      path: '/v3/transfers',
      body: JSON.stringify({
        source: `account:${partner.accountId}`,
        sourceCurrency: 'USD',
        sourceAmount: '1',
        dest: `user:${bob}`,
        destCurrency: 'USD',
      }),
    });
    const transferId = ((await created.json()) as { id: string }).id;
    const accountId = ((await accountSubscription.json()) as { id: string }).id;
    const userId = ((await userSubscription.json()) as { id: string }).id;
    const byAccount = await deliveriesOf(fx.t, `account:${partner.accountId}`);
    expect(byAccount.map((row) => [row.subscription_id, JSON.parse(row.body)])).toEqual([
      [accountId, { subscriptionId: accountId, trigger: `account:${partner.accountId}` }],
    ]);
    const byTransfer = await deliveriesOf(fx.t, `transfer:${transferId}`);
    expect(byTransfer.map((row) => JSON.parse(row.body))).toEqual([
      { subscriptionId: userId, trigger: `transfer:${transferId}` },
    ]);
  });
});
