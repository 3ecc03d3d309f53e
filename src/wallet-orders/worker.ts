import { CARD_OPERATION_JOB, type OperationKind } from '../cards/index.ts';
import { registerPeriodic } from '../platform/jobs/housekeeping.ts';
import type { ClaimedJob, JobRunner } from '../platform/jobs/runner.ts';
import { togetherOrEachAlone } from '../platform/jobs/together-or-alone.ts';
import { expireAuthorization } from './authorization.ts';
import { CAPTURE_SWEEP_EVERY_MS, CAPTURE_SWEEP_JOB, captureAgingOrders } from './capture-sweep.ts';
import { runPaymentOperation } from './card-payment-operations.ts';
import { pollCardPayment } from './card-payments.ts';
import { DELIVER_CODE_JOB, deliverCode } from './code-delivery.ts';
import type { WalletOrdersDeps } from './deps.ts';
import {
  CARD_AUTHORIZE_JOB,
  EXPIRE_AUTHORIZATION_JOB,
  ordersOfProcessingJob,
  PROCESS_ORDER_JOB,
} from './jobs.ts';
import { processOrder, processOrders } from './transitions.ts';

/**
 * The card orders' background work: processing cleared orders, expiring steps and delivering
 * their codes.
 * `ordersPerTransaction`: the processing chunk (tests give a small one rather than place hundreds).
 */
export function registerWalletOrderJobs(
  runner: JobRunner,
  ctx: WalletOrdersDeps,
  ordersPerTransaction = ORDERS_PER_TRANSACTION,
): void {
  runner.register(PROCESS_ORDER_JOB, (job) => processJobOrders(ctx, job));
  runner.registerGroup(PROCESS_ORDER_JOB, (jobs) =>
    processInChunks(ctx, jobs.flatMap(orderIdsOf), ordersPerTransaction),
  );
  runner.register(EXPIRE_AUTHORIZATION_JOB, (job) => expireAuthorization(ctx, String(job.payload.orderId)));
  runner.register(DELIVER_CODE_JOB, (job) => deliverCode(ctx, job.payload));
  if (ctx.cardProcessor.remote) registerCardPaymentJobs(runner, ctx);
}

/** A remote processor's status poll and its capture, void and refund calls (card-payments.ts). */
function registerCardPaymentJobs(runner: JobRunner, ctx: WalletOrdersDeps): void {
  runner.register(CARD_AUTHORIZE_JOB, (job) =>
    pollCardPayment(ctx, String(job.payload.orderId), Number(job.payload.poll ?? 0)),
  );
  runner.register(CARD_OPERATION_JOB, (job) => {
    const { orderId, kind, n } = job.payload;
    return runPaymentOperation(ctx, String(orderId), kind as OperationKind, Number(n));
  });
}

/**
 * The periodic capture of authorizations nearing their end (capture-sweep.ts): one singleton job
 * whatever the number of worker processes, each run a sweep over every order due.
 */
export function registerCaptureSweep(runner: JobRunner, ctx: WalletOrdersDeps): Promise<unknown> {
  return registerPeriodic(runner, ctx.db, CAPTURE_SWEEP_JOB, CAPTURE_SWEEP_EVERY_MS, async () => {
    await captureAgingOrders(ctx);
  });
}

const orderIdsOf = (job: ClaimedJob) => ordersOfProcessingJob(job.payload);

/**
 * Orders per processing transaction. A claimed batch of jobs can name thousands of orders (each
 * job those of one creation group); one transaction for all of them would hold all their row
 * locks for as long as the whole batch takes, and the chain's reports on the first orders would
 * wait for the last. Each transaction pays its dozen statements' fixed cost, so fewer, larger
 * ones cost less per order (bench/DECISIONS.md says how the size was chosen).
 */
export const ORDERS_PER_TRANSACTION = 400;

/** A batch's orders, a transaction per chunk; a chunk that throws fails the batch (then each job alone). */
async function processInChunks(
  ctx: WalletOrdersDeps,
  orderIds: readonly string[],
  chunk: number,
): Promise<void> {
  for (let start = 0; start < orderIds.length; start += chunk) {
    await processOrders(ctx, orderIds.slice(start, start + chunk));
  }
}

/**
 * One processing job (alone, or after its batch failed): its orders together, and if that fails,
 * each order alone; orders processed meanwhile are skipped on the retry, as processOrders skips
 * every order no longer waiting.
 */
function processJobOrders(ctx: WalletOrdersDeps, job: ClaimedJob): Promise<void> {
  return togetherOrEachAlone(
    orderIdsOf(job),
    (orderIds) => processOrders(ctx, orderIds),
    (orderId) => processOrder(ctx, orderId),
  );
}
