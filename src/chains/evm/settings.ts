import { ConfigError } from '../../config-error.ts';
import { CHAINS, type Chain, isEvmChain } from '../addresses.ts';

/**
 * The settings of the EVM chains Rampart holds real custody on, one set per chain, named after
 * the chain's SRN prefix in upper case (`RAMPART_CHAIN_ETHEREUM_RPC_URL` for `ethereum:`). A chain
 * without an RPC URL has no settings: sandbox simulates it, production refuses it.
 */
export interface EvmChainSettings {
  chain: Chain;
  rpcUrl: string;
  /** Checked against the node at start when given. */
  chainId: number | undefined;
  confirmations: number;
  /** The ledger currency code of the chain's native coin. */
  nativeCurrency: string;
  /** The ledger currency code of each ERC-20 token held on this chain, with its contract. */
  tokens: { currency: string; contract: `0x${string}` }[];
}

/** How the sends of every EVM chain behave (contract decisions 72–75). */
export interface EvmSendSettings {
  /** A transaction pending this long below the market fee is replaced with a higher fee. */
  feeBumpAfterMs: number;
  /** A send the hot wallet cannot cover waits this long for funds, then fails with its funds returned. */
  fundsWaitMs: number;
  /** Native coin may be sent to an address holding code (a contract). */
  nativeToContracts: boolean;
  /** How often the sender looks at its chain's pending sends. */
  pollMs: number;
}

type Env = Record<string, string | undefined>;

const CURRENCY_CODE = /^[A-Z][A-Z0-9]{1,9}$/;
const CONTRACT = /^0x[0-9a-fA-F]{40}$/;

function variable(chain: Chain, suffix: string): string {
  return `RAMPART_CHAIN_${chain.toUpperCase()}_${suffix}`;
}

function rpcUrl(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `"${raw}" is not a URL`);
  }
  if (!['http:', 'https:'].includes(url.protocol)) throw new ConfigError(name, 'must be http or https');
  return raw;
}

function wholeNumber(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function currencyCode(name: string, raw: string): string {
  if (!CURRENCY_CODE.test(raw))
    throw new ConfigError(name, `"${raw}" is not a currency code (2 to 10 capitals and digits)`);
  return raw;
}

/** `USDC=0x…,DAI=0x…`: each token's ledger currency and contract address. */
function tokens(env: Env, name: string): EvmChainSettings['tokens'] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  return raw.split(',').map((pair) => {
    const [code = '', contract = '', ...rest] = pair.trim().split('=');
    if (rest.length > 0 || !CONTRACT.test(contract.trim()))
      throw new ConfigError(name, `"${pair.trim()}" is not CURRENCY=0x<40 hex digits>`);
    return { currency: currencyCode(name, code.trim()), contract: contract.trim() as `0x${string}` };
  });
}

function chainSettings(env: Env, chain: Chain): EvmChainSettings | undefined {
  const url = rpcUrl(env, variable(chain, 'RPC_URL'));
  if (url === undefined) return undefined;
  const nativeRaw = env[variable(chain, 'NATIVE')]?.trim();
  return {
    chain,
    rpcUrl: url,
    chainId: wholeNumber(env, variable(chain, 'CHAIN_ID'), 1, Number.MAX_SAFE_INTEGER),
    confirmations: wholeNumber(env, variable(chain, 'CONFIRMATIONS'), 1, 1000) ?? 12,
    nativeCurrency: nativeRaw ? currencyCode(variable(chain, 'NATIVE'), nativeRaw) : 'ETH',
    tokens: tokens(env, variable(chain, 'TOKENS')),
  };
}

/**
 * Every EVM chain with an RPC URL. One asset, one currency code, one chain: a currency code
 * configured twice (on two chains, or twice on one) is refused, so a balance, a hold and a
 * reconciliation always belong to one chain.
 */
export function parseEvmChains(env: Env): Partial<Record<Chain, EvmChainSettings>> {
  const chains: Partial<Record<Chain, EvmChainSettings>> = {};
  const seen = new Map<string, string>();
  for (const chain of CHAINS.filter(isEvmChain)) {
    const settings = chainSettings(env, chain);
    if (!settings) continue;
    const codes = [
      { code: settings.nativeCurrency, name: variable(chain, 'NATIVE') },
      ...settings.tokens.map((token) => ({ code: token.currency, name: variable(chain, 'TOKENS') })),
    ];
    for (const { code, name } of codes) {
      const where = seen.get(code);
      if (where !== undefined)
        throw new ConfigError(
          name,
          `currency ${code} is already configured on ${where}: one currency code, one chain`,
        );
      seen.set(code, chain);
    }
    chains[chain] = settings;
  }
  return chains;
}

export function parseEvmSendSettings(env: Env): EvmSendSettings {
  const nativeToContracts = env.RAMPART_EVM_NATIVE_TO_CONTRACTS;
  if (nativeToContracts !== undefined && !['', 'true', 'false', '1', '0'].includes(nativeToContracts))
    throw new ConfigError(
      'RAMPART_EVM_NATIVE_TO_CONTRACTS',
      `must be true or false, got "${nativeToContracts}"`,
    );
  return {
    feeBumpAfterMs: wholeNumber(env, 'RAMPART_EVM_FEE_BUMP_AFTER_MS', 100, 86_400_000) ?? 180_000,
    fundsWaitMs: wholeNumber(env, 'RAMPART_EVM_FUNDS_WAIT_MS', 0, 7 * 86_400_000) ?? 3_600_000,
    nativeToContracts: nativeToContracts === 'true' || nativeToContracts === '1',
    pollMs: wholeNumber(env, 'RAMPART_EVM_POLL_MS', 50, 600_000) ?? 2000,
  };
}
