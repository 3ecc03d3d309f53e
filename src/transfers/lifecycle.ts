import type { ChainOutcome } from '../chains/index.ts';
import { postEntry, voidHold } from '../ledger/index.ts';
import { type Db, type Tx, withTransaction } from '../platform/db/pool.ts';
import { enqueueJob } from '../platform/jobs/queue.ts';
import type { JobRunner } from '../platform/jobs/runner.ts';
import { onBankOutcome } from './bank-transfers.ts';
import { transferPostings } from './creation.ts';
import type { TransferRulesDeps } from './deps.ts';
import { reversalPostings } from './postings.ts';
import { partiesOf } from './service.ts';
import { historyEntry } from './status-history.ts';
import { changeStatus, lockOneDueUnconfirmed, lockTransferById } from './store.ts';

/**
 * What happens to transfers after the request: UNCONFIRMED ones expire (hold voided) by a
 * periodic sweep that reads the service clock, so the sandbox clock moves expiries too;
 * withdrawals become COMPLETED or FAILED (funds returned) when the chain reports, and bank
 * transfers when the bank rail reports (bank-transfers.ts).
 */
export const EXPIRY_SWEEP_JOB = 'transfers.expireUnconfirmed';
const SWEEP_EVERY_MS = 5000;
/** Bounds one sweep's work; whatever is left waits for the next one. */
const SWEEP_MAX = 500;

/**
 * Expires every UNCONFIRMED transfer past `expiresAt` by ctx.clock, one transaction each (one
 * transaction voiding several holds would lock balances out of sorted order). Returns how many.
 */
export async function expireDueTransfers(ctx: TransferRulesDeps): Promise<number> {
  let expired = 0;
  while (expired < SWEEP_MAX) {
    const done = await withTransaction(ctx.db, async (tx) => {
      const now = ctx.clock.now();
      const row = await lockOneDueUnconfirmed(tx, now);
      if (!row) return false;
      await voidHold(tx, row.hold_id!);
      await changeStatus(tx, row.id, {
        status: 'EXPIRED',
        history: [historyEntry('EXPIRED', now.getTime())],
        at: now,
        cancelled: true,
      });
      return true;
    });
    if (!done) return expired;
    expired += 1;
  }
  return expired;
}

/**
 * The chain's answer for `transfer:TF_…`, in the chain's settling transaction (so exactly once).
 * CONFIRMED completes it with the BlockchainTx; FAILED posts the exact reverse of the
 * settlement entry, returning everything, fees included, to the source.
 */
export async function onTransferOutcome(
  ctx: TransferRulesDeps,
  tx: Tx,
  outcome: ChainOutcome,
): Promise<void> {
  const row = await lockTransferById(tx, outcome.reference.slice('transfer:'.length));
  if (row?.status !== 'PENDING') return;
  const at = ctx.clock.now();
  if (outcome.status === 'CONFIRMED') {
    await changeStatus(tx, row.id, {
      status: 'COMPLETED',
      history: [historyEntry('COMPLETED', at.getTime())],
      at,
      completed: true,
      blockchainTx: outcome.blockchainTx ?? {},
    });
    return;
  }
  const { dest } = partiesOf(row, ctx.chains.network);
  await postEntry(tx, {
    kind: 'transfer.returned',
    reference: outcome.reference,
    memo: outcome.failureReason ?? 'chain send failed',
    postings: reversalPostings(transferPostings(ctx, row, dest)),
  });
  await changeStatus(tx, row.id, {
    status: 'FAILED',
    history: [historyEntry('FAILED', at.getTime())],
    at,
    failureReason: outcome.failureReason ?? 'The chain did not accept this transfer.',
  });
}

function scheduleSweep(db: Db, runAtMs?: number) {
  return enqueueJob(db, {
    kind: EXPIRY_SWEEP_JOB,
    singletonKey: EXPIRY_SWEEP_JOB,
    ...(runAtMs ? { runAtMs } : {}),
  });
}

/** Wires the transfers module's background work into a job runner (serve and worker alike). */
export async function registerTransferJobs(runner: JobRunner, ctx: TransferRulesDeps): Promise<void> {
  ctx.bankTransfers.rail?.registerSettler(runner, (outcome) =>
    withTransaction(ctx.db, (tx) => onBankOutcome(ctx, tx, outcome)),
  );
  runner.register(EXPIRY_SWEEP_JOB, async () => {
    try {
      await expireDueTransfers(ctx);
    } finally {
      await scheduleSweep(ctx.db, Date.now() + SWEEP_EVERY_MS);
    }
  });
  await scheduleSweep(ctx.db);
}
