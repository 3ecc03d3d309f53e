import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { ConfigError } from '../../config-error.ts';
import type { StartLog } from '../port.ts';
import type { CustodyAccount } from './custody-keys.ts';
import type { EvmChainSettings } from './settings.ts';

/** One JSON-RPC call's bound: a node that hangs must not hold a worker's job for its whole lease. */
const RPC_TIMEOUT_MS = 10_000;

/** Calls per JSON-RPC batch: what one watcher read issues at once (batched-reads.ts READS_AT_ONCE). */
const BATCH_SIZE = 500;
/** A batch of BATCH_SIZE reads answers slower than one call: its own bound. */
const BATCH_TIMEOUT_MS = 30_000;

/** A chain's node as the backend talks to it: reads, and the hot wallet's signing account. */
export interface EvmRpc {
  publicClient: PublicClient;
  /**
   * The deposit side's reads (watcher, sweeper): concurrent calls go out as JSON-RPC batches of
   * up to BATCH_SIZE, so reading thousands of deposit addresses costs a few HTTP requests.
   */
  watchClient: PublicClient;
  /** The hot wallet's client; its account signs locally (the key never leaves this process). */
  walletClient: WalletClient;
  hotAccount: PrivateKeyAccount;
}

/**
 * The viem clients of a chain. Retries are the sender's (it comes back on its next round), not
 * the transport's, so a dead node costs one timeout per call, not several.
 */
export function evmRpc(settings: EvmChainSettings, hot: CustodyAccount): EvmRpc {
  const transport = http(settings.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0 });
  const chain = defineChain({
    id: settings.chainId ?? 1,
    name: settings.chain,
    nativeCurrency: { name: settings.nativeCurrency, symbol: settings.nativeCurrency, decimals: 18 },
    rpcUrls: { default: { http: [settings.rpcUrl] } },
  });
  const hotAccount = privateKeyToAccount(hot.privateKey);
  const batched = http(settings.rpcUrl, {
    timeout: BATCH_TIMEOUT_MS,
    retryCount: 0,
    batch: { batchSize: BATCH_SIZE, wait: 0 },
  });
  return {
    publicClient: createPublicClient({ chain, transport, cacheTime: 0 }) as PublicClient,
    watchClient: createPublicClient({ chain, transport: batched, cacheTime: 0 }) as PublicClient,
    walletClient: createWalletClient({ account: hotAccount, chain, transport }),
    hotAccount,
  };
}

/**
 * The node's chain id against RAMPART_CHAIN_<NAME>_CHAIN_ID: a node of another chain would sign
 * and pay on the wrong network, so a mismatch stops the start (ConfigError: one line). An
 * unreachable node does not: the chain answers 503 until it comes back. Returns the node's id,
 * or undefined when it did not answer.
 */
export async function checkChainId(
  settings: EvmChainSettings,
  client: PublicClient,
  log: StartLog,
): Promise<number | undefined> {
  let nodeChainId: number;
  try {
    nodeChainId = await client.getChainId();
  } catch (error) {
    log.warn(
      { chain: settings.chain, error: (error as Error).message.split('\n')[0] },
      'chain node unreachable at start: its sends wait, new ones answer 503',
    );
    return undefined;
  }
  if (settings.chainId !== undefined && nodeChainId !== settings.chainId) {
    throw new ConfigError(
      `RAMPART_CHAIN_${settings.chain.toUpperCase()}_CHAIN_ID`,
      `is ${settings.chainId}, but the node at the RPC URL is chain ${nodeChainId}`,
    );
  }
  return nodeChainId;
}
