import { enqueueJob } from '../platform/jobs/queue.ts';
import type { ClaimedJob, JobRunner } from '../platform/jobs/runner.ts';
import type { BankMovement, BankOutcome, BankOutcomeHandler, BankRail } from './bank-port.ts';

/**
 * The simulated bank of sandbox: a payout or ACH pull settles after the sandbox chain's delay
 * (RAMPART_SANDBOX_CHAIN_DELAY_MS), except to or from these documented account numbers (like
 * Stripe's test bank accounts), so every path can be tested end to end:
 *
 * - SANDBOX_FAILING_BANK_ACCOUNT: the bank refuses the movement (FAILED, funds returned).
 * - SANDBOX_RETURNED_BANK_ACCOUNT: it settles, then the bank returns it (REVERSED).
 */
export const SANDBOX_FAILING_BANK_ACCOUNT = '000222222226';
export const SANDBOX_RETURNED_BANK_ACCOUNT = '000333333339';

export const SANDBOX_BANK_FAILURE = 'Sandbox: the bank refused this transfer (documented failing account).';
export const SANDBOX_BANK_RETURN =
  'Sandbox: the bank returned this transfer after it settled (documented returned account).';

export const SANDBOX_BANK_JOB = 'transfers.sandboxBankSettle';
/** A handler that throws (a lock timeout, a deadlock) gets the job retried with backoff; reports are idempotent. */
const SETTLE_ATTEMPTS = 5;

/** What the bank will report for a movement, decided from the account as the request is made. */
function reportsFor(movement: BankMovement): BankOutcome[] {
  const { reference, account } = movement;
  if (account.accountNumber === SANDBOX_FAILING_BANK_ACCOUNT)
    return [{ reference, status: 'FAILED', reason: SANDBOX_BANK_FAILURE }];
  const settled: BankOutcome = { reference, status: 'SETTLED' };
  if (account.accountNumber === SANDBOX_RETURNED_BANK_ACCOUNT)
    return [settled, { reference, status: 'RETURNED', reason: SANDBOX_BANK_RETURN }];
  return [settled];
}

/** The job carries the reports only: the account number never leaves the payment method's sealed column. */
function reportsOf(job: ClaimedJob): BankOutcome[] {
  const reports = job.payload.reports;
  return Array.isArray(reports) ? (reports as BankOutcome[]) : [];
}

/** `delayMs` is real (database) time, as every job's: the simulated bank's delay is not business time. */
export function sandboxBank(delayMs: number): BankRail {
  return {
    async request(tx, movement) {
      await enqueueJob(tx, {
        kind: SANDBOX_BANK_JOB,
        payload: { reports: reportsFor(movement) },
        runAtMs: Date.now() + delayMs,
        maxAttempts: SETTLE_ATTEMPTS,
      });
    },
    registerSettler(runner: JobRunner, onOutcome: BankOutcomeHandler) {
      runner.register(SANDBOX_BANK_JOB, async (job) => {
        // In order: a return is reported after the settlement it reverses. A retry repeats the
        // reports already handled, which change nothing the second time.
        for (const report of reportsOf(job)) await onOutcome(report);
      });
    },
  };
}
