import { describe, expect, it } from 'vitest';
import {
  chainsForCurrency,
  isValidAddress,
  networkFor,
  parseChainSrn,
  sandboxDepositAddress,
  toChecksumAddress,
} from '../../src/chains/addresses.ts';

describe('EVM addresses (EIP-55)', () => {
  // Test vectors from the EIP-55 specification.
  const vectors = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it('computes the checksum of the specification vectors', () => {
    for (const address of vectors) expect(toChecksumAddress(address.slice(2).toLowerCase())).toBe(address);
  });

  it('accepts checksummed, all-lower and all-upper addresses; refuses a wrong checksum', () => {
    const [first] = vectors as [string];
    expect(isValidAddress('ethereum', first, 'mainnet')).toBe(true);
    expect(isValidAddress('matic', first.toLowerCase(), 'testnet')).toBe(true);
    expect(isValidAddress('avalanche', `0x${first.slice(2).toUpperCase()}`, 'mainnet')).toBe(true);
    const flipped = `${first.slice(0, -1)}D`; // last letter's case changed
    expect(isValidAddress('ethereum', flipped, 'mainnet')).toBe(false);
    expect(isValidAddress('ethereum', first.slice(0, -1), 'mainnet')).toBe(false);
    expect(isValidAddress('ethereum', `${first.slice(0, -1)}g`, 'mainnet')).toBe(false);
  });
});

describe('bitcoin addresses', () => {
  it('checks base58check P2PKH and P2SH per network', () => {
    expect(isValidAddress('bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'mainnet')).toBe(true);
    expect(isValidAddress('bitcoin', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'mainnet')).toBe(true);
    expect(isValidAddress('bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', 'mainnet')).toBe(false);
    expect(isValidAddress('bitcoin', 'n4VQ5YdHf7hLQ2gWQYYrcxoE5B7nWuDFNF', 'testnet')).toBe(true);
    expect(isValidAddress('bitcoin', 'n4VQ5YdHf7hLQ2gWQYYrcxoE5B7nWuDFNF', 'mainnet')).toBe(false);
    expect(isValidAddress('bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'testnet')).toBe(false);
  });

  it('checks bech32 (witness v0) and bech32m (v1+) with the BIP-173/350 rules', () => {
    expect(isValidAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'mainnet')).toBe(true);
    expect(isValidAddress('bitcoin', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'mainnet')).toBe(true);
    expect(isValidAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'mainnet')).toBe(false);
    expect(
      isValidAddress('bitcoin', 'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297', 'mainnet'),
    ).toBe(true);
    expect(isValidAddress('bitcoin', 'tb1q6yn0ajs733xsk25vefrhwjey4629qt9c67y6ma', 'testnet')).toBe(true);
    expect(isValidAddress('bitcoin', 'tb1q6yn0ajs733xsk25vefrhwjey4629qt9c67y6ma', 'mainnet')).toBe(false);
    // Mixed case is invalid in bech32.
    expect(isValidAddress('bitcoin', 'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'mainnet')).toBe(false);
    // A v0 program encoded with bech32m (BIP-350 invalid vector).
    expect(isValidAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'mainnet')).toBe(false);
  });
});

describe('parseChainSrn', () => {
  it('splits chain and address', () => {
    expect(parseChainSrn('ethereum:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'dest', 'testnet')).toEqual({
      chain: 'ethereum',
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    });
  });

  it('names the field for an unknown chain, a missing prefix, a bad address or the wrong network', () => {
    for (const value of [
      'dogecoin:D6x',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      'bitcoin:',
      'bitcoin:1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
    ]) {
      expect(() => parseChainSrn(value, 'dest', 'testnet')).toThrow(
        expect.objectContaining({ problematicField: 'dest' }),
      );
    }
  });
});

describe('sandbox deposit addresses', () => {
  it('are deterministic, distinct per chain and seed, and valid on the test network', () => {
    for (const chain of ['bitcoin', 'ethereum', 'matic', 'avalanche'] as const) {
      const address = sandboxDepositAddress(chain, 'US_SEED');
      expect(sandboxDepositAddress(chain, 'US_SEED')).toBe(address);
      expect(sandboxDepositAddress(chain, 'US_OTHER')).not.toBe(address);
      expect(isValidAddress(chain, address, 'testnet')).toBe(true);
    }
  });
});

describe('currencies and networks', () => {
  it('maps currencies to the chains that carry them', () => {
    expect(chainsForCurrency('BTC')).toEqual(['bitcoin']);
    expect(chainsForCurrency('USDC')).toContain('matic');
    expect(chainsForCurrency('constructor')).toEqual([]);
    expect(networkFor('sandbox')).toBe('testnet');
    expect(networkFor('production')).toBe('mainnet');
  });
});
