import type { Queryable } from '../platform/db/pool.ts';
import { enqueueJob, type NewJob } from '../platform/jobs/queue.ts';
import type { NewOrderWrite } from './store.ts';

export const PROCESS_ORDER_JOB = 'walletOrders.process';
export const EXPIRE_AUTHORIZATION_JOB = 'walletOrders.expireAuthorization';
/** The status poll, and crash fallback, of a remote processor's authorization (card-payments.ts). */
export const CARD_AUTHORIZE_JOB = 'cards.authorize';

/**
 * Capture and delivery happen in the worker, queued in the transaction that cleared the orders:
 * one job for all the orders one transaction cleared (payload `orderIds`). Orders placed together
 * share a job, as the chain sends of a worker batch share their settle job (chains/store.ts): a
 * job is three `jobs` row versions (queued, claimed, done), none of them HOT.
 */
export function processingJob(orderIds: readonly string[]): NewJob {
  return { kind: PROCESS_ORDER_JOB, payload: { orderIds: [...orderIds] }, maxAttempts: 5 };
}

/** The orders a processing job names; `orderId` is the payload of jobs queued before `orderIds`. */
export function ordersOfProcessingJob(payload: Record<string, unknown>): string[] {
  if (Array.isArray(payload.orderIds)) return payload.orderIds.map(String);
  return payload.orderId === undefined ? [] : [String(payload.orderId)];
}

/**
 * What new orders queue: each authorization step's expiry job, and one processing job for all
 * the orders cleared (no step) by the same statement.
 */
export function jobsOfNewOrders(writes: readonly NewOrderWrite[]): NewJob[] {
  const jobs = writes.flatMap((write) => (write.step ? [write.step.job] : []));
  const cleared = writes.filter((write) => write.step === undefined).map((write) => write.order.id);
  if (cleared.length > 0) jobs.push(processingJob(cleared));
  return jobs;
}

export function enqueueProcessing(q: Queryable, orderId: string) {
  return enqueueJob(q, processingJob([orderId]));
}

/**
 * Fails an order whose codes or 3-D Secure were not completed in time. `runAtMs` is real time
 * (the job queue's clock); the handler re-checks expiry by the service clock, and a sandbox
 * clock moved forward is also caught when the order is next read or authorised.
 */
export function authorizationExpiryJob(orderId: string, runAtMs: number): NewJob {
  return { kind: EXPIRE_AUTHORIZATION_JOB, payload: { orderId }, runAtMs, maxAttempts: 5 };
}

/**
 * Asks a remote processor for an order's authorization (card-payments.ts pollCardPayment), queued
 * with the order: its first run comes after the request's own call had its full time, so it is
 * the fallback of a crash or a timeout. `poll` counts the asks before it.
 */
export function cardAuthorizeJob(orderId: string, runAtMs: number, poll = 0): NewJob {
  return { kind: CARD_AUTHORIZE_JOB, payload: { orderId, poll }, runAtMs, maxAttempts: 3 };
}
