import { onChainOutcome, onChainOutcomes } from '../chains/port.ts';
import type { AppContext } from '../platform/context.ts';
import type { JobRunner } from '../platform/jobs/runner.ts';
import { expireAuthorization } from './authorization.ts';
import { EXPIRE_AUTHORIZATION_JOB, PROCESS_ORDER_JOB } from './jobs.ts';
import { onOrderDeliveries, onOrderDelivery, processOrder, processOrders } from './transitions.ts';

/** The card orders' background work: processing cleared orders, expiring steps, chain outcomes. */
export function registerWalletOrderJobs(runner: JobRunner, ctx: AppContext): void {
  runner.register(PROCESS_ORDER_JOB, (job) => processOrder(ctx, String(job.payload.orderId)));
  runner.registerGroup(PROCESS_ORDER_JOB, (jobs) =>
    processOrders(
      ctx,
      jobs.map((job) => String(job.payload.orderId)),
    ),
  );
  runner.register(EXPIRE_AUTHORIZATION_JOB, (job) => expireAuthorization(ctx, String(job.payload.orderId)));
  onChainOutcome('order', (_ctx, tx, outcome) => onOrderDelivery(ctx, tx, outcome));
  onChainOutcomes('order', (_ctx, tx, outcomes) => onOrderDeliveries(ctx, tx, outcomes));
}
