import { mnemonicToSeedSync } from '@scure/bip39';
import { bytesToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { custodyKeys } from '../../../src/chains/evm/custody-keys.ts';

/** BIP-39's first test vector (no passphrase), and hardhat's well-known test mnemonic. */
const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const HARDHAT = 'test test test test test test test test test test test junk';

describe('custody keys', () => {
  it('derive from the BIP-39 seed of the test vector', () => {
    expect(bytesToHex(mnemonicToSeedSync(ABANDON))).toBe(
      '0x5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4',
    );
    expect(custodyKeys(ABANDON).depositAccount(0).address).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it("put deposits on m/44'/60'/0'/0/<index>: hardhat's accounts are its mnemonic's first indexes", () => {
    const keys = custodyKeys(HARDHAT);
    expect(keys.depositAccount(0)).toEqual({
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    });
    expect(keys.depositAccount(1).address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
  });

  it("keep the hot wallet on its own derivation (m/44'/60'/1'/0/0), apart from every deposit index", () => {
    const keys = custodyKeys(HARDHAT);
    const hot = keys.hotWallet();
    expect(hot.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(hot).toEqual(keys.hotWallet());
    for (let index = 0; index < 20; index++) expect(keys.depositAccount(index).address).not.toBe(hot.address);
    expect(custodyKeys(ABANDON).hotWallet().address).not.toBe(hot.address);
  });

  it('refuse an index that is not a BIP-32 child index', () => {
    const keys = custodyKeys(ABANDON);
    for (const index of [-1, 1.5, 2 ** 31])
      expect(() => keys.depositAccount(index)).toThrow(/not a BIP-32 child index/);
  });
});
