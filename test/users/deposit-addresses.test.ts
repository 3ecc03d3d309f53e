import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidAddress } from '../../src/chains/addresses.ts';
import { findDepositAddressOwner } from '../../src/chains/deposit-addresses.ts';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { signedFetch } from '../helpers/partner.ts';
import { expectError } from '../identity/support.ts';
import { createUser, readUser, startUsersApp, userState } from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startUsersApp());
});
afterAll(async () => t?.close());

describe('deposit addresses', () => {
  it('BTC and ETH: a testnet bech32 and an EIP-55 address, keyed by currency, stored with their owner', async () => {
    const user = await createUser(t, partner, { blockchains: ['BTC', 'ETH'] });
    // Every chain with a backend, whatever was asked for (docs/contract.md, decision 66).
    expect(Object.keys(user.depositAddresses).sort()).toEqual(['AVAX', 'BTC', 'ETH', 'MATIC']);
    const btc = user.depositAddresses.BTC!;
    const eth = user.depositAddresses.ETH!;
    expect(btc).toMatch(/^tb1/);
    expect(isValidAddress('bitcoin', btc, 'testnet')).toBe(true);
    expect(eth).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(eth).not.toBe(eth.toLowerCase());
    expect(isValidAddress('ethereum', eth, 'testnet')).toBe(true);
    expect(await findDepositAddressOwner(t.database.db, 'ethereum', eth)).toMatchObject({
      owner: `user:${user.id}`,
      currency: 'ETH',
    });
    expect((await readUser(t, partner, user.id)).depositAddresses).toEqual(user.depositAddresses);
  });

  it('ALL gives one address per supported chain; users never share an address', async () => {
    const a = await createUser(t, partner, { blockchains: ['ALL'] });
    const b = await createUser(t, partner, { blockchains: ['all'] });
    expect(Object.keys(a.depositAddresses).sort()).toEqual(['AVAX', 'BTC', 'ETH', 'MATIC']);
    for (const currency of Object.keys(a.depositAddresses)) {
      expect(a.depositAddresses[currency]).not.toBe(b.depositAddresses[currency]);
    }
  });

  it('an unsupported chain is refused and no user is created', async () => {
    const before = await userState(t);
    const response = await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/users',
      body: JSON.stringify({ blockchains: ['BTC', 'DOGE'] }),
    });
    await expectError(response, 400, 'ValidationException', {
      errorCode: 'validation.unsupportedBlockchain',
      problematicField: 'blockchains[1]',
    });
    expect(await userState(t)).toEqual(before);
  });
});
