import type { Queryable } from '../platform/db/pool.ts';
import { enqueueJob, type NewJob } from '../platform/jobs/queue.ts';

export const PROCESS_ORDER_JOB = 'walletOrders.process';
export const EXPIRE_AUTHORIZATION_JOB = 'walletOrders.expireAuthorization';

/** Capture and delivery happen in the worker, queued in the transaction that cleared the order. */
export function processingJob(orderId: string): NewJob {
  return { kind: PROCESS_ORDER_JOB, payload: { orderId }, maxAttempts: 5 };
}

export function enqueueProcessing(q: Queryable, orderId: string) {
  return enqueueJob(q, processingJob(orderId));
}

/**
 * Fails an order whose codes or 3-D Secure were not completed in time. `runAtMs` is real time
 * (the job queue's clock); the handler re-checks expiry by the service clock, and a sandbox
 * clock moved forward is also caught when the order is next read or authorised.
 */
export function authorizationExpiryJob(orderId: string, runAtMs: number): NewJob {
  return { kind: EXPIRE_AUTHORIZATION_JOB, payload: { orderId }, runAtMs, maxAttempts: 5 };
}
