import { BaseError } from 'viem';
import { enqueueJob } from '../../platform/jobs/queue.ts';
import type { JobRunner } from '../../platform/jobs/runner.ts';
import type { Chain } from '../addresses.ts';
import type { ChainBackend, ChainsDeps, StartLog } from '../port.ts';
import type { CustodyKeys } from './custody-keys.ts';
import { evmDepositSide } from './deposit-side.ts';
import { reconcileEvmChain } from './reconciliation.ts';
import { checkChainId, evmRpc } from './rpc.ts';
import { contractRefusal, type EvmChainRuntime, isUnreachable } from './send-common.ts';
import { runSender } from './sender.ts';
import type { EvmChainSettings, EvmSendSettings } from './settings.ts';
import { tokenDecimals } from './token-reads.ts';

/** How often a process checks that an unreachable (or reached) node answers, for the 503 of new sends. */
const PROBE_MS = 2000;

export function senderJobKind(chain: Chain): string {
  return `evm.send.${chain}`;
}

/**
 * A real EVM chain as a chains-port backend: its sends are paid from the hot wallet of `keys`
 * by sender.ts, one round per job of kind `evm.send.<chain>` (queued with every send, and
 * again every RAMPART_EVM_POLL_MS while the worker runs). The node's reachability, probed in
 * every process, decides whether new sends are taken (503 when it is down). Its deposit side
 * (deposit-side.ts: derived addresses, the watcher and the sweeper) and its reconciliation use
 * the same node and keys.
 */
export function evmChain(
  settings: EvmChainSettings,
  keys: CustodyKeys,
  sends: EvmSendSettings,
): ChainBackend {
  const rpc = evmRpc(settings, keys.hotWallet());
  let nodeChainId: number | undefined;
  let up = true;
  let probe: NodeJS.Timeout | undefined;
  const kind = senderJobKind(settings.chain);
  const deposits = evmDepositSide(settings, keys, rpc.watchClient);

  const runtime: EvmChainRuntime = {
    settings,
    sends,
    rpc,
    async chainId() {
      nodeChainId ??= settings.chainId ?? (await rpc.publicClient.getChainId());
      return nodeChainId;
    },
    tokenDecimals: (contract) => tokenDecimals(rpc.publicClient, contract),
    reached(answered) {
      up = answered;
    },
  };

  const probeOnce = async (log: StartLog | undefined) => {
    try {
      const id = await checkChainId(settings, rpc.publicClient, log ?? { warn: () => undefined });
      up = id !== undefined;
    } catch (error) {
      // A node that turns into another chain after the start is refused, not stopped for.
      up = false;
      log?.warn({ chain: settings.chain, error: (error as Error).message }, 'chain node refused');
    }
  };

  const scheduleNext = (ctx: ChainsDeps) =>
    enqueueJob(ctx.db, {
      kind,
      singletonKey: kind,
      runAtMs: Date.now() + sends.pollMs,
      payload: { chain: settings.chain },
    });

  return {
    currencies: [settings.nativeCurrency, ...settings.tokens.map((token) => token.currency)],
    simulatesDeposits: deposits.simulatesDeposits,
    booksGas: true,
    depositAddress: deposits.depositAddress,
    registerWatcher: deposits.registerWatcher,
    reconcile: (ctx) => reconcileEvmChain(ctx, deposits.swept),
    settleJob: () => ({ kind, runAtMs: Date.now(), maxAttempts: 1 }),
    reachable: () => up,
    async destinationRefusal(address, currency) {
      if (currency !== settings.nativeCurrency || sends.nativeToContracts) return undefined;
      const code = await rpc.publicClient.getCode({ address: address as `0x${string}` });
      return code !== undefined && code !== '0x' ? contractRefusal(address, currency) : undefined;
    },
    async checkAtStart(log) {
      const id = await checkChainId(settings, rpc.publicClient, log);
      up = id !== undefined;
      if (id !== undefined) nodeChainId = settings.chainId ?? id;
      probe ??= setInterval(() => void probeOnce(undefined), PROBE_MS);
      probe.unref();
    },
    close() {
      clearInterval(probe);
      probe = undefined;
    },
    async registerSettler(runner: JobRunner, ctx: ChainsDeps) {
      runner.register(kind, async () => {
        try {
          await runSender(ctx, runtime);
        } catch (error) {
          // The next round tries again; a node that does not answer is a wait, not a fault.
          if (isUnreachable(error)) return;
          // viem's full message names the RPC URL, which may carry the provider's API key.
          if (error instanceof BaseError) throw new Error(`${settings.chain} node: ${error.shortMessage}`);
          throw error;
        } finally {
          await scheduleNext(ctx);
        }
      });
      await enqueueJob(ctx.db, { kind, singletonKey: kind, payload: { chain: settings.chain } });
    },
  };
}
