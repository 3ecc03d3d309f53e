import type { Address, PublicClient } from 'viem';
import type { Queryable } from '../../platform/db/pool.ts';
import { enqueueJob } from '../../platform/jobs/queue.ts';
import type { JobRunner } from '../../platform/jobs/runner.ts';
import type { Chain } from '../addresses.ts';
import type { ChainBackend, ChainsDeps } from '../port.ts';
import type { CustodyKeys } from './custody-keys.ts';
import { evmDepositAddress } from './deposit-addresses.ts';
import type { EvmChainSettings } from './settings.ts';
import { type SweptChain, sweepOnce } from './sweeper.ts';
import { type WatchedChain, watchOnce } from './watcher.ts';

/** How many blocks one watcher pass reads at most (a catch-up after a stop runs pass after pass). */
export const WATCH_BLOCK_RANGE = 100;
/** Passes one run makes while behind, so a long catch-up gives other jobs their turn. */
const PASSES_PER_RUN = 20;
const WATCH_EVERY_MS = 1000;
/** Sweeps look at every deposit address's balances: less often than the watcher reads blocks. */
const SWEEP_EVERY_MS = 15_000;

/** The deposit side of one EVM chain's backend: its addresses, the watcher and the sweeper. */
export type EvmDepositSide = Pick<
  ChainBackend,
  'depositAddress' | 'simulatesDeposits' | 'registerWatcher'
> & {
  watched: WatchedChain;
  swept: SweptChain;
};

export function evmDepositSide(
  settings: EvmChainSettings,
  keys: CustodyKeys,
  client: PublicClient,
): EvmDepositSide {
  const currencies = [settings.nativeCurrency, ...settings.tokens.map((token) => token.currency)];
  const watched: WatchedChain = {
    chain: settings.chain,
    confirmations: settings.confirmations,
    nativeCurrency: settings.nativeCurrency,
    tokens: settings.tokens,
    client,
    hotWallet: keys.hotWallet().address as Address,
    maxBlockRange: WATCH_BLOCK_RANGE,
  };
  const swept: SweptChain = { ...watched, keys };
  return {
    watched,
    swept,
    simulatesDeposits: false,
    depositAddress: async (q: Queryable, chain: Chain, owner: string) => ({
      address: await evmDepositAddress(q, keys, chain, owner),
      currencies,
    }),
    registerWatcher: (runner: JobRunner, ctx: ChainsDeps) => registerWatcher(runner, ctx, watched, swept),
  };
}

/**
 * The watcher and the sweeper of a chain as periodic singleton jobs: one of each queued at a time
 * whatever the number of worker processes, each run queuing the next first, so a run that fails
 * (the node down) fails that attempt only and the next one tries again.
 */
async function registerWatcher(runner: JobRunner, ctx: ChainsDeps, watched: WatchedChain, swept: SweptChain) {
  const watchKind = `chains.evmWatch.${watched.chain}`;
  const sweepKind = `chains.evmSweep.${watched.chain}`;
  runner.register(watchKind, async () => {
    await enqueueJob(ctx.db, {
      kind: watchKind,
      singletonKey: watchKind,
      runAtMs: Date.now() + WATCH_EVERY_MS,
    });
    for (let pass = 0; pass < PASSES_PER_RUN; pass++) {
      const done = await watchOnce(ctx, watched);
      if (!done?.behind) break;
    }
  });
  runner.register(sweepKind, async () => {
    await enqueueJob(ctx.db, {
      kind: sweepKind,
      singletonKey: sweepKind,
      runAtMs: Date.now() + SWEEP_EVERY_MS,
    });
    await sweepOnce(ctx, swept);
  });
  await enqueueJob(ctx.db, { kind: watchKind, singletonKey: watchKind });
  await enqueueJob(ctx.db, { kind: sweepKind, singletonKey: sweepKind });
}
