import { auditOperatorChange, type OperatorAct } from '../operator/index.ts';
import type { AppContext } from '../platform/context.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { isId } from '../platform/ids.ts';
import {
  attemptsOf,
  type DeliveryRow,
  type DeliveryStatus,
  findDelivery,
  findPartnerDelivery,
  listDeliveries,
  partnerDeliveriesAfter,
  requeueDelivery,
} from './deliveries-store.ts';
import { callbackErrors } from './errors.ts';

/** docs/contract.md, decision 12: `{id, subscriptionId, trigger, url, status, attempts, lastError, createdAt}`. */
export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    trigger: row.trigger,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    lastStatusCode: row.last_status_code,
    createdAt: row.created_at,
  };
}

export async function listCallbackDeliveries(
  ctx: AppContext,
  status: DeliveryStatus | undefined,
  offset: number,
  limit: number,
) {
  return { data: (await listDeliveries(ctx.db, status, offset, limit)).map(deliveryView) };
}

/** One delivery with every attempt (status code, latency, error) in order. */
export async function getCallbackDelivery(ctx: AppContext, deliveryId: string) {
  const row = isId(deliveryId, 'CB') ? await findDelivery(ctx.db, deliveryId) : undefined;
  if (!row) throw callbackErrors.deliveryNotFound();
  return withAttempts(ctx, row, deliveryId);
}

/**
 * Queues a delivered or failed callback again (with the configured retries), audited in the same
 * transaction. The body is sent as stored; the signature is made fresh at the attempt.
 */
export async function resendCallback(ctx: AppContext, act: OperatorAct, deliveryId: string) {
  return withTransaction(ctx.db, async (tx) => {
    const row = isId(deliveryId, 'CB') ? await findDelivery(tx, deliveryId) : undefined;
    if (!row) throw callbackErrors.deliveryNotFound();
    if (!(await requeueDelivery(tx, deliveryId, 1 + ctx.config.callbackRetries)))
      throw callbackErrors.deliveryPending();
    await auditOperatorChange(tx, act, `callback:${deliveryId}`, { previousStatus: row.status });
    return deliveryView((await findDelivery(tx, deliveryId))!);
  });
}

/** A partner's own deliveries, newest first, after the delivery `after` (keyset paging). */
export async function partnerDeliveries(
  ctx: AppContext,
  partnerId: string,
  after: string | undefined,
  limit: number,
) {
  return (await partnerDeliveriesAfter(ctx.db, partnerId, after, limit)).map(deliveryView);
}

/** One of the partner's deliveries with every attempt; another partner's is not found, as none is. */
export async function partnerDelivery(ctx: AppContext, partnerId: string, deliveryId: string) {
  const row = isId(deliveryId, 'CB') ? await findPartnerDelivery(ctx.db, partnerId, deliveryId) : undefined;
  if (!row) throw callbackErrors.deliveryNotFound();
  return withAttempts(ctx, row, deliveryId);
}

/** A delivery's view with every attempt (status code, latency, error) in order. */
async function withAttempts(ctx: AppContext, row: Parameters<typeof deliveryView>[0], deliveryId: string) {
  const attempts = await attemptsOf(ctx.db, deliveryId);
  return {
    ...deliveryView(row),
    attemptLog: attempts.map((a) => ({
      startedAt: a.started_at,
      statusCode: a.status_code,
      latencyMs: a.latency_ms,
      error: a.error,
    })),
  };
}
