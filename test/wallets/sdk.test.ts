import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundException, RampartClient, ValidationException } from '../../sdk/src/index.js';
import { createPartner } from '../helpers/partner.ts';
import { approvedUser, credit, startTransfersApp, type TransfersFixture } from '../transfers/support.ts';

/**
 * Every v2 wallet, transfer, rates and account call made through @rampart/sdk against a real
 * Rampart: the SDK builds, signs and sends each request (docs/contract.md, "Wallets and v2
 * transfers").
 */

let f: TransfersFixture;
let client: RampartClient;
let anonymous: RampartClient;
beforeAll(async () => {
  f = await startTransfersApp();
  const auth = { type: 'signature' as const, apiKey: f.partner.apiKey, secretKey: f.partner.secretKey };
  client = new RampartClient({ baseUrl: f.t.baseUrl, auth });
  anonymous = new RampartClient({
    baseUrl: f.t.baseUrl,
    auth: { type: 'bearer', token: 'unused-for-open-routes' },
  });
});
afterAll(async () => f.t.close());

describe('wallets through the SDK', () => {
  it('creates, finds, updates, lists and deletes wallets, for a user through masquerade', async () => {
    const userId = await approvedUser(f.t, f.partner);
    const asUser = client.masquerade(`user:${userId}`);
    const wallet = await asUser.wallets.create({ name: 'sdk-savings', type: 'SAVINGS', notes: 'n' });
    expect(wallet).toMatchObject({ owner: `user:${userId}`, type: 'SAVINGS', srn: `wallet:${wallet.id}` });
    expect((await asUser.wallets.get(wallet.id)).name).toBe('sdk-savings');
    expect((await asUser.wallets.findByName('sdk-savings')).id).toBe(wallet.id);
    const updated = await asUser.wallets.update(wallet.id, { notes: null, verificationData: { ok: true } });
    expect(updated).toMatchObject({ notes: null, verificationData: { ok: true } });
    const many = await asUser.wallets.createMany([{ name: 'sdk-a' }, { name: 'sdk-b' }]);
    expect(many.map((w) => w.name)).toEqual(['sdk-a', 'sdk-b']);
    const listed = await asUser.wallets.list({ limit: 10 });
    expect(listed.data.map((w) => w.name)).toEqual(['sdk-savings', 'sdk-a', 'sdk-b']);
    expect(await asUser.wallets.delete(many[1]!.id)).toEqual({});
    await expect(asUser.wallets.get(many[1]!.id)).rejects.toBeInstanceOf(NotFoundException);
  });

  it('refuses a batch with a bad wallet as a ValidationException', async () => {
    const refused = await client.wallets
      .createMany([{ name: 'fine' }, { name: '' }])
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationException);
    expect((refused as ValidationException).problematicField).toBe('wallets[1].name');
    expect((refused as ValidationException).envelope.errors).toEqual([
      expect.objectContaining({ index: 1, problematicField: 'wallets[1].name' }),
    ]);
  });

  it('reads wallet balances as exact amounts', async () => {
    const wallet = await client.wallets.create({ name: 'sdk-exact' });
    await credit(f.t, wallet.srn, 'ETH', '0.123456789012345678');
    const read = await client.wallets.get(wallet.id);
    expect(read.balances).toEqual({ ETH: '0.123456789012345678' });
    expect(read.totalBalances).toEqual({ ETH: '0.123456789012345678' });
  });
});

describe('v2 transfers, tracker, rates and account through the SDK', () => {
  it('moves money from a wallet with the v2 calls and tracks it without credentials', async () => {
    const wallet = await client.wallets.create({ name: 'sdk-payer' });
    await credit(f.t, wallet.srn, 'USD', '40');
    const quote = await client.v2.quote({
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: `account:${f.partner.accountId}`,
    });
    expect(quote.status).toBe('PREVIEW');
    const created = await client.v2.createTransfer({
      source: wallet.srn,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: `account:${f.partner.accountId}`,
      customId: 'sdk-v2',
      callbackUrl: 'http://127.0.0.1:9/hook',
    });
    expect(created.status).toBe('UNCONFIRMED');
    expect((await client.v2.getTransfer(created.id)).id).toBe(created.id);
    expect((await client.v2.transferByCustomId('sdk-v2')).id).toBe(created.id);
    const confirmed = await client.v2.confirmTransfer(created.id);
    expect(confirmed.status).toBe('COMPLETED');
    const tracked = await anonymous.v2.track(created.id);
    expect(tracked).toMatchObject({
      transferId: created.id,
      from: `Wallet ${wallet.id}`,
      to: `Account ${f.partner.accountId}`,
      sourceAmount: '10',
      status: 'COMPLETED',
    });
    expect((await client.wallets.get(wallet.id)).balances).toEqual({ USD: '30' });
  });

  it('reads v2 rates as v3 rates', async () => {
    expect(await anonymous.v2.rates({ as: 'PRICED' })).toEqual(await anonymous.rates.get({ as: 'PRICED' }));
  });

  it('reads the legacy account, its own and a sub-account’s', async () => {
    const other = await createPartner(f.t, { name: 'Legacy reader' });
    const reader = new RampartClient({
      baseUrl: f.t.baseUrl,
      auth: { type: 'signature', apiKey: other.apiKey, secretKey: other.secretKey },
    });
    await credit(f.t, `account:${other.accountId}`, 'USD', '2.5');
    const own = await reader.v2.account();
    expect(own).toMatchObject({
      id: other.accountId,
      srn: `account:${other.accountId}`,
      ledgers: [{ currency: 'USD', balance: '2.5', pendingBalance: '0', totalBalance: '2.5' }],
    });
    const sub = await reader.accounts.create({ type: 'INDIVIDUAL', country: 'US', subaccount: true });
    expect((await reader.v2.account(sub.id)).id).toBe(sub.id);
  });
});
