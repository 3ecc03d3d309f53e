import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { resolveSecrets } from '../../../src/platform/bootstrap-secrets.ts';

const TOKEN = 'operator-token-0123456789-abcdefghijklmnop';
const MASTER = 'ab'.repeat(32);
const SEED = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const USDC = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const DAI = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('\n');
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('EVM chain settings', () => {
  it('has no real chain without an RPC URL', () => {
    expect(loadConfig({}).evmChains).toEqual({});
  });

  it('reads a chain with its defaults: 12 confirmations, ETH, no tokens, no chain id', () => {
    const config = loadConfig({ RAMPART_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:8545' });
    expect(config.evmChains).toEqual({
      ethereum: {
        chain: 'ethereum',
        rpcUrl: 'http://127.0.0.1:8545',
        chainId: undefined,
        confirmations: 12,
        nativeCurrency: 'ETH',
        tokens: [],
      },
    });
  });

  it('reads every setting of several chains, base and arbitrum included', () => {
    const config = loadConfig({
      RAMPART_CHAIN_ETHEREUM_RPC_URL: 'https://eth.example/v1',
      RAMPART_CHAIN_ETHEREUM_CHAIN_ID: '1',
      RAMPART_CHAIN_ETHEREUM_CONFIRMATIONS: '3',
      RAMPART_CHAIN_ETHEREUM_TOKENS: `USDC=${USDC}, DAI=${DAI}`,
      RAMPART_CHAIN_MATIC_RPC_URL: 'https://polygon.example',
      RAMPART_CHAIN_MATIC_NATIVE: 'MATIC',
      RAMPART_CHAIN_MATIC_TOKENS: `MUSDC=${USDC}`,
      RAMPART_CHAIN_BASE_RPC_URL: 'https://base.example',
      RAMPART_CHAIN_BASE_NATIVE: 'BASEETH',
      RAMPART_CHAIN_ARBITRUM_RPC_URL: 'https://arb.example',
      RAMPART_CHAIN_ARBITRUM_NATIVE: 'ARBETH',
    });
    expect(config.evmChains.ethereum).toEqual({
      chain: 'ethereum',
      rpcUrl: 'https://eth.example/v1',
      chainId: 1,
      confirmations: 3,
      nativeCurrency: 'ETH',
      tokens: [
        { currency: 'USDC', contract: USDC },
        { currency: 'DAI', contract: DAI },
      ],
    });
    expect(config.evmChains.matic?.tokens).toEqual([{ currency: 'MUSDC', contract: USDC }]);
    expect(Object.keys(config.evmChains).sort()).toEqual(['arbitrum', 'base', 'ethereum', 'matic']);
  });

  it('refuses bad values with one line naming the variable', () => {
    const rpc = { RAMPART_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:8545' };
    expect(refusal({ RAMPART_CHAIN_ETHEREUM_RPC_URL: 'not a url' })).toMatch(
      /^RAMPART_CHAIN_ETHEREUM_RPC_URL: /,
    );
    expect(refusal({ RAMPART_CHAIN_ETHEREUM_RPC_URL: 'ws://127.0.0.1:8545' })).toMatch(
      /must be http or https/,
    );
    expect(refusal({ ...rpc, RAMPART_CHAIN_ETHEREUM_CHAIN_ID: 'x1' })).toMatch(
      /^RAMPART_CHAIN_ETHEREUM_CHAIN_ID: /,
    );
    expect(refusal({ ...rpc, RAMPART_CHAIN_ETHEREUM_CONFIRMATIONS: '0' })).toMatch(
      /^RAMPART_CHAIN_ETHEREUM_CONFIRMATIONS: must be between 1 and 1000/,
    );
    expect(refusal({ ...rpc, RAMPART_CHAIN_ETHEREUM_TOKENS: 'USDC=0x1234' })).toMatch(
      /^RAMPART_CHAIN_ETHEREUM_TOKENS: "USDC=0x1234" is not CURRENCY=0x/,
    );
    expect(refusal({ ...rpc, RAMPART_CHAIN_ETHEREUM_TOKENS: `usdc=${USDC}` })).toMatch(
      /is not a currency code/,
    );
    expect(refusal({ ...rpc, RAMPART_CHAIN_ETHEREUM_NATIVE: 'eth' })).toMatch(
      /^RAMPART_CHAIN_ETHEREUM_NATIVE: /,
    );
  });

  it('refuses one currency code on two chains, or twice on one (one asset, one code, one chain)', () => {
    expect(
      refusal({
        RAMPART_CHAIN_ETHEREUM_RPC_URL: 'http://a.example',
        RAMPART_CHAIN_BASE_RPC_URL: 'http://b.example',
      }),
    ).toBe(
      'RAMPART_CHAIN_BASE_NATIVE: currency ETH is already configured on ethereum: one currency code, one chain',
    );
    expect(
      refusal({
        RAMPART_CHAIN_ETHEREUM_RPC_URL: 'http://a.example',
        RAMPART_CHAIN_ETHEREUM_TOKENS: `USDC=${USDC}`,
        RAMPART_CHAIN_MATIC_RPC_URL: 'http://b.example',
        RAMPART_CHAIN_MATIC_NATIVE: 'MATIC',
        RAMPART_CHAIN_MATIC_TOKENS: `USDC=${DAI}`,
      }),
    ).toMatch(/^RAMPART_CHAIN_MATIC_TOKENS: currency USDC is already configured on ethereum/);
    expect(
      refusal({
        RAMPART_CHAIN_ETHEREUM_RPC_URL: 'http://a.example',
        RAMPART_CHAIN_ETHEREUM_TOKENS: `ETH=${USDC}`,
      }),
    ).toMatch(/currency ETH is already configured on ethereum/);
  });

  it('reads the send settings, with their defaults', () => {
    expect(loadConfig({}).evmSends).toEqual({
      feeBumpAfterMs: 180_000,
      fundsWaitMs: 3_600_000,
      nativeToContracts: false,
      pollMs: 2000,
    });
    expect(
      loadConfig({
        RAMPART_EVM_FEE_BUMP_AFTER_MS: '500',
        RAMPART_EVM_FUNDS_WAIT_MS: '0',
        RAMPART_EVM_NATIVE_TO_CONTRACTS: 'true',
        RAMPART_EVM_POLL_MS: '100',
      }).evmSends,
    ).toEqual({ feeBumpAfterMs: 500, fundsWaitMs: 0, nativeToContracts: true, pollMs: 100 });
    expect(refusal({ RAMPART_EVM_NATIVE_TO_CONTRACTS: 'yes' })).toMatch(/^RAMPART_EVM_NATIVE_TO_CONTRACTS: /);
  });
});

describe('RAMPART_CUSTODY_SEED', () => {
  const production = { RAMPART_ENV: 'production', RAMPART_MASTER_KEY: MASTER, RAMPART_OPERATOR_TOKEN: TOKEN };

  it('is required in production once a chain is configured, and only then', () => {
    expect(loadConfig(production).custodySeed).toBeUndefined();
    expect(refusal({ ...production, RAMPART_CHAIN_ETHEREUM_RPC_URL: 'http://a.example' })).toBe(
      'RAMPART_CUSTODY_SEED: is required when RAMPART_ENV=production and a chain is configured',
    );
    const config = loadConfig({
      ...production,
      RAMPART_CHAIN_ETHEREUM_RPC_URL: 'http://a.example',
      RAMPART_CUSTODY_SEED: ` ${SEED.replaceAll(' ', '  ')} `,
    });
    expect(config.custodySeed).toBe(SEED);
  });

  it('is refused when it is not a BIP-39 mnemonic, without repeating it', () => {
    const bad = SEED.replace('about', 'abandon'); // checksum no longer matches
    const message = refusal({ RAMPART_CUSTODY_SEED: bad });
    expect(message).toBe('RAMPART_CUSTODY_SEED: is not a valid BIP-39 mnemonic (English words, checksum)');
    expect(message).not.toContain('abandon');
  });

  it('is generated into the sandbox secrets file, sealed, and kept across restarts', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-seed-'));
    try {
      const env = { RAMPART_DATA_DIR: dataDir, RAMPART_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:1' };
      const first = await resolveSecrets(loadConfig(env));
      expect(first.custodySeed?.split(' ')).toHaveLength(24);
      const file = await readFile(path.join(dataDir, 'sandbox-secrets.json'), 'utf8');
      for (const word of new Set(first.custodySeed!.split(' ')))
        expect(file).not.toMatch(new RegExp(`\\b${word}\\b`));
      expect(JSON.parse(file).custodySeedSealed).toMatch(/^[A-Za-z0-9+/]+=*$/);
      const again = await resolveSecrets(loadConfig(env));
      expect(again.custodySeed).toBe(first.custodySeed);
      expect(again.generated).toBe(false);
      // A configured seed wins over the file's.
      expect((await resolveSecrets(loadConfig({ ...env, RAMPART_CUSTODY_SEED: SEED }))).custodySeed).toBe(
        SEED,
      );
      // Without a chain none is made or read.
      expect((await resolveSecrets(loadConfig({ RAMPART_DATA_DIR: dataDir }))).custodySeed).toBeUndefined();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('is added to an existing sandbox secrets file, whose other secrets stay', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-seed-'));
    try {
      const before = await resolveSecrets(loadConfig({ RAMPART_DATA_DIR: dataDir }));
      expect(before.custodySeed).toBeUndefined();
      const after = await resolveSecrets(
        loadConfig({ RAMPART_DATA_DIR: dataDir, RAMPART_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:1' }),
      );
      expect(after.operatorToken).toBe(before.operatorToken);
      expect(after.masterKey.equals(before.masterKey)).toBe(true);
      expect(after.custodySeed?.split(' ')).toHaveLength(24);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
