import type { Queryable } from '../platform/db/pool.ts';
import type { CodeKind } from './code-sender.ts';

/** SQL for the deliveries of orders' codes (migrations/073_code_deliveries.sql). */

export interface DeliveryStart {
  /** The order's phone, E.164. */
  phone: string;
  /** The step still waits for its codes (and has not expired by the service clock). */
  stepPending: boolean;
  /** False when an earlier run already finished this delivery (sent, refused or abandoned). */
  due: boolean;
}

/**
 * Counts one attempt at sending `kind` of `orderId` and answers what the sender needs, unless an
 * earlier run finished it; undefined for an order without a step (never queued for one).
 */
export async function startDelivery(
  q: Queryable,
  orderId: string,
  kind: CodeKind,
  nowMs: number,
): Promise<DeliveryStart | undefined> {
  const { rows } = await q.query<{ phone: string; step_pending: boolean; due: boolean }>(
    `WITH target AS (
       SELECT o.phone,
              a.state = 'PENDING' AND o.status = 'RUNNING_CHECKS' AND a.expires_at > to_timestamp($3::bigint / 1000.0)
                AS step_pending
       FROM wallet_orders o JOIN wallet_order_authorizations a ON a.order_id = o.id
       WHERE o.id = $1
     ),
     d AS (
       INSERT INTO wallet_order_code_deliveries AS d (order_id, kind, state, attempts, updated_at)
       SELECT $1, $2, 'SENDING', 1, now() FROM target
       ON CONFLICT (order_id, kind) DO UPDATE SET attempts = d.attempts + 1, updated_at = now()
         WHERE d.state = 'SENDING'
       RETURNING 1
     )
     SELECT phone, step_pending, EXISTS (SELECT 1 FROM d) AS due FROM target`,
    [orderId, kind, nowMs],
  );
  const row = rows[0];
  return row && { phone: row.phone, stepPending: row.step_pending, due: row.due };
}

/** What became of a delivery: SENT with the provider's reference, or REFUSED / ABANDONED with why. */
export async function finishDelivery(
  q: Queryable,
  orderId: string,
  kind: CodeKind,
  outcome: { state: 'SENT'; reference: string } | { state: 'REFUSED' | 'ABANDONED'; detail: string },
): Promise<void> {
  await q.query(
    `UPDATE wallet_order_code_deliveries
     SET state = $3, provider_reference = $4, detail = $5, updated_at = now()
     WHERE order_id = $1 AND kind = $2 AND state = 'SENDING'`,
    [
      orderId,
      kind,
      outcome.state,
      outcome.state === 'SENT' ? outcome.reference : null,
      outcome.state === 'SENT' ? null : outcome.detail,
    ],
  );
}
