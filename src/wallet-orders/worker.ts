import { onChainOutcome, onChainOutcomes } from '../chains/port.ts';
import type { AppContext } from '../platform/context.ts';
import type { ClaimedJob, JobRunner } from '../platform/jobs/runner.ts';
import { togetherOrEachAlone } from '../platform/jobs/together-or-alone.ts';
import { expireAuthorization } from './authorization.ts';
import { EXPIRE_AUTHORIZATION_JOB, ordersOfProcessingJob, PROCESS_ORDER_JOB } from './jobs.ts';
import { onOrderDeliveries, onOrderDelivery, processOrder, processOrders } from './transitions.ts';

/** The card orders' background work: processing cleared orders, expiring steps, chain outcomes. */
export function registerWalletOrderJobs(runner: JobRunner, ctx: AppContext): void {
  runner.register(PROCESS_ORDER_JOB, (job) => processJobOrders(ctx, job));
  runner.registerGroup(PROCESS_ORDER_JOB, (jobs) => processInChunks(ctx, jobs.flatMap(orderIdsOf)));
  runner.register(EXPIRE_AUTHORIZATION_JOB, (job) => expireAuthorization(ctx, String(job.payload.orderId)));
  onChainOutcome('order', (_ctx, tx, outcome) => onOrderDelivery(ctx, tx, outcome));
  onChainOutcomes('order', (_ctx, tx, outcomes) => onOrderDeliveries(ctx, tx, outcomes));
}

const orderIdsOf = (job: ClaimedJob) => ordersOfProcessingJob(job.payload);

/**
 * Orders per processing transaction. A claimed batch of jobs can name a thousand orders (each
 * job those of one creation group); one transaction for all of them held the house balances'
 * stripes and the holds that long, and, while the workers shared the API's event loop, its
 * synchronous work (building the transfers, sends and entries) stalled the requests.
 */
export const ORDERS_PER_TRANSACTION = 100;

/** A batch's orders, a transaction per chunk; a chunk that throws fails the batch (then each job alone). */
async function processInChunks(ctx: AppContext, orderIds: readonly string[]): Promise<void> {
  for (let start = 0; start < orderIds.length; start += ORDERS_PER_TRANSACTION) {
    await processOrders(ctx, orderIds.slice(start, start + ORDERS_PER_TRANSACTION));
  }
}

/**
 * One processing job (alone, or after its batch failed): its orders together, and if that fails,
 * each order alone; orders processed meanwhile are skipped on the retry, as processOrders skips
 * every order no longer waiting.
 */
function processJobOrders(ctx: AppContext, job: ClaimedJob): Promise<void> {
  return togetherOrEachAlone(
    orderIdsOf(job),
    (orderIds) => processOrders(ctx, orderIds),
    (orderId) => processOrder(ctx, orderId),
  );
}
