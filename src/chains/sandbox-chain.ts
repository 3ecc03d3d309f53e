import { bech32 } from '@scure/base';
import { withTransaction } from '../platform/db/pool.ts';
import { randomChars, randomHex } from '../platform/ids.ts';
import type { ClaimedJob, JobRunner } from '../platform/jobs/runner.ts';
import { togetherOrEachAlone } from '../platform/jobs/together-or-alone.ts';
import { CHAINS, type Chain, sandboxDepositAddress } from './addresses.ts';
import { type ChainBackend, type ChainOutcome, type ChainsDeps, deliverChainOutcomes } from './port.ts';
import { type ChainSendRow, lockQueuedSends, recordOutcomes } from './store.ts';

/**
 * The simulated chain of sandbox: a queued send confirms after RAMPART_SANDBOX_CHAIN_DELAY_MS
 * with a generated transaction, except a send to a documented failing address, which FAILS
 * (like Stripe's test card numbers), so the failure path can be tested end to end:
 *
 * - EVM chains (ethereum, matic, avalanche, base, arbitrum): 0x0000000000000000000000000000000000fa11ed
 * - bitcoin (testnet):                       SANDBOX_FAILING_ADDRESSES.bitcoin (tb1q + 20 zero bytes)
 */
export const SANDBOX_FAILING_ADDRESSES: Record<Chain, string> = {
  ethereum: '0x0000000000000000000000000000000000fa11ed',
  matic: '0x0000000000000000000000000000000000fa11ed',
  avalanche: '0x0000000000000000000000000000000000fa11ed',
  base: '0x0000000000000000000000000000000000fa11ed',
  arbitrum: '0x0000000000000000000000000000000000fa11ed',
  bitcoin: bech32.encode('tb', [0, ...bech32.toWords(new Uint8Array(20))]),
};

export const SANDBOX_FAILURE_REASON = 'Sandbox: the chain rejected this send (documented failing address).';

function sendFails(send: ChainSendRow): boolean {
  const failing = SANDBOX_FAILING_ADDRESSES[send.chain as Chain];
  return failing !== undefined && failing.toLowerCase() === send.address.toLowerCase();
}

export const SANDBOX_SETTLE_JOB = 'chains.sandboxSettle';
/** A handler that throws (a lock timeout, a deadlock) gets the job retried with backoff. */
const SETTLE_ATTEMPTS = 5;

/** The simulated hot wallet's address on a chain (an HMAC and, on EVM, a keccak checksum). */
const HOT_WALLETS = Object.fromEntries(
  CHAINS.map((chain) => [chain, sandboxDepositAddress(chain, 'rampart:sandbox-hot-wallet')]),
) as Record<Chain, string>;

/** The BlockchainTx of docs/contract.md (Transfers); amounts stay decimal text here and become numbers in the API view. */
function generatedTx(send: ChainSendRow, nowMs: number): Record<string, unknown> {
  const evm = send.chain !== 'bitcoin';
  return {
    id: `TR_${randomChars(11)}`,
    networkTxId: evm ? `0x${randomHex(32)}` : randomHex(32),
    createdAt: nowMs,
    confirmations: 1,
    timeObserved: nowMs,
    blockTime: nowMs,
    blockhash: evm ? `0x${randomHex(32)}` : `00000000${randomHex(28)}`,
    amount: send.amount,
    direction: 'OUTGOING',
    networkFee: send.network_fee,
    address: send.address,
    sourceAddress: HOT_WALLETS[send.chain as Chain],
    currency: send.currency,
    twinTxId: null,
  };
}

/**
 * Settles queued sends and tells their modules, in one transaction (one statement per step for
 * all of them; the worker passes a claimed batch's sends). Safe to repeat: a send already settled
 * is not found as QUEUED, so each outcome is delivered exactly once.
 */
export async function settleSandboxSends(ctx: ChainsDeps, references: readonly string[]): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const sends = await lockQueuedSends(tx, references);
    if (sends.length === 0) return;
    const outcomes: ChainOutcome[] = sends.map((send) =>
      sendFails(send)
        ? { reference: send.reference, status: 'FAILED', failureReason: SANDBOX_FAILURE_REASON }
        : {
            reference: send.reference,
            status: 'CONFIRMED',
            blockchainTx: generatedTx(send, ctx.clock.nowMs()),
          },
    );
    await recordOutcomes(
      tx,
      outcomes.map((outcome) => ({
        reference: outcome.reference,
        status: outcome.status,
        blockchainTx: outcome.blockchainTx ?? null,
        failureReason: outcome.failureReason ?? null,
      })),
    );
    await deliverChainOutcomes(ctx, tx, outcomes);
  });
}

/** A settle job's sends: `references` (one job per batch of sends), or `reference` (jobs queued before). */
function referencesOf(job: ClaimedJob): string[] {
  const { references, reference } = job.payload;
  return Array.isArray(references) ? references.map(String) : [String(reference)];
}

/**
 * One settle job's sends: together, and if that throws (one send's module refusing its outcome,
 * say), each alone, so the others settle. A send that still fails fails the job, which is retried
 * with backoff; the sends settled meanwhile are no longer QUEUED, so only the failing ones are
 * tried again (as when each send had its own job).
 */
function settleJob(ctx: ChainsDeps, job: ClaimedJob): Promise<void> {
  return togetherOrEachAlone(
    referencesOf(job),
    (references) => settleSandboxSends(ctx, references),
    (reference) => settleSandboxSends(ctx, [reference]),
  );
}

/**
 * The simulated chain as a backend: one for every chain of the sandbox. `delayMs` is real
 * (database) time, as every job's: the simulated chain's delay is not business time.
 */
export function sandboxChain(delayMs: number): ChainBackend {
  return {
    settleJob: () => ({
      kind: SANDBOX_SETTLE_JOB,
      runAtMs: Date.now() + delayMs,
      maxAttempts: SETTLE_ATTEMPTS,
    }),
    depositAddress: async (_q, chain, owner, currency) => ({
      address: sandboxDepositAddress(chain, `${owner}:${currency}`),
      currencies: [currency],
    }),
    simulatesDeposits: true,
    cancelsQueuedSends: true,
    registerSettler(runner: JobRunner, ctx: ChainsDeps) {
      runner.register(SANDBOX_SETTLE_JOB, (job) => settleJob(ctx, job));
      runner.registerGroup(SANDBOX_SETTLE_JOB, (jobs) => settleSandboxSends(ctx, jobs.flatMap(referencesOf)));
    },
  };
}
