import { BaseError, type Hex } from 'viem';
import type { Tx } from '../../platform/db/pool.ts';
import type { EvmRpc } from './rpc.ts';
import { markBroadcast, type StoredTx } from './send-store.ts';
import type { EvmChainSettings, EvmSendSettings } from './settings.ts';

// What every step of an EVM chain's sender shares (sender.ts runs the steps).

/** One chain as its sender sees it: settings, node, and what the backend keeps between rounds. */
export interface EvmChainRuntime {
  settings: EvmChainSettings;
  sends: EvmSendSettings;
  rpc: EvmRpc;
  /** The chain id transactions are signed for (configured, else the node's). */
  chainId(): Promise<number>;
  tokenDecimals(contract: `0x${string}`): Promise<number>;
  /** Told whether the node answered this round. */
  reached(up: boolean): void;
}

/** Why a send is refused before it gets a nonce: it fails, funds returned, nothing sent. */
export class Refusal extends Error {}
/** The hot wallet cannot cover the send now: it waits (bounded by RAMPART_EVM_FUNDS_WAIT_MS). */
export class Shortfall extends Error {}

/** Native coin to a contract is refused unless RAMPART_EVM_NATIVE_TO_CONTRACTS allows it (decision 77). */
export function contractRefusal(address: string, currency: string): string {
  return `${address} is a contract: ${currency} is not sent to contracts (RAMPART_EVM_NATIVE_TO_CONTRACTS).`;
}

/** A transport failure (refused, timed out, garbage): the node did not answer. */
export function isUnreachable(error: unknown): boolean {
  const names = ['HttpRequestError', 'TimeoutError', 'WebSocketRequestError', 'SocketClosedError'];
  if (error instanceof BaseError)
    return Boolean(error.walk((inner) => names.includes((inner as Error).name)));
  return false;
}

/**
 * Runs fn for each item in turn; one item's failure does not stop the others (a send the node
 * refuses must not hold up the chain's other sends). A node that does not answer stops the round
 * at once; otherwise the first failure is thrown once every item had its turn.
 */
export async function eachAlone<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let first: unknown;
  for (const item of items) {
    try {
      await fn(item);
    } catch (error) {
      if (isUnreachable(error)) throw error;
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}

export function errorText(error: unknown): string {
  if (error instanceof BaseError) {
    const texts: string[] = [];
    error.walk((inner) => {
      texts.push((inner as BaseError).details ?? '', (inner as Error).message);
      return false;
    });
    return texts.join(' ');
  }
  return String((error as Error)?.message ?? error);
}

export function storedView(tx: {
  hash: Hex;
  raw: Hex;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}): StoredTx {
  return {
    hash: tx.hash,
    raw: tx.raw,
    gas_limit: tx.gasLimit.toString(),
    max_fee_per_gas: tx.maxFeePerGas.toString(),
    max_priority_fee_per_gas: tx.maxPriorityFeePerGas.toString(),
    signed_at_ms: Date.now(),
    broadcast: false,
  };
}

/** Answers of a node that already has this nonce's transaction (or this very one). */
const ALREADY_THERE = /already known|known transaction|nonce too low|underpriced|already imported/i;

export async function broadcastOne(client: Tx, chain: EvmChainRuntime, tx: StoredTx): Promise<void> {
  try {
    await chain.rpc.publicClient.sendRawTransaction({ serializedTransaction: tx.raw });
  } catch (error) {
    if (isUnreachable(error) || !ALREADY_THERE.test(errorText(error))) throw error;
  }
  await markBroadcast(client, tx.hash);
}
