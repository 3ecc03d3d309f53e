import type { Param } from '../platform/db/parameters.ts';
import type { Db, Queryable } from '../platform/db/pool.ts';

/**
 * The SQL of callback deliveries and their attempts.
 *
 * The callbacks' database functions, called from here or, inside another domain's statement,
 * through queueTransferCreatedCall and queueTransfersCreatedCall: callbacks_queue_transfer_created,
 * callbacks_queue_transfers_created; inside the database only: callbacks_new_delivery_id.
 */

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface DeliveryRow {
  id: string;
  partner_id: string;
  subscription_id: string | null;
  trigger: string;
  url: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  last_status_code: number | null;
  created_at: Date;
}

const COLUMNS = `id, partner_id, subscription_id, trigger, url, body, status, attempts, max_attempts,
  last_error, last_status_code, created_at`;

/** A delivery row's columns, for the console's reads (console-store.ts). */
export const deliveryColumns = COLUMNS;

export async function insertDelivery(
  q: Queryable,
  row: Pick<
    DeliveryRow,
    'id' | 'partner_id' | 'subscription_id' | 'trigger' | 'url' | 'body' | 'max_attempts'
  >,
): Promise<void> {
  await q.query(
    `INSERT INTO callback_deliveries (id, partner_id, subscription_id, trigger, url, body, status, max_attempts)
     VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', $7)`,
    [row.id, row.partner_id, row.subscription_id, row.trigger, row.url, row.body, row.max_attempts],
  );
}

/** callbacks_queue_transfer_created's arguments (migration 010). */
export interface TransferCreatedArguments {
  partnerId: string;
  accountId: string;
  /** `transfer:TF_…` */
  trigger: string;
  /** Subscriptions to any of these SRNs get a delivery. */
  srns: string[];
  /** The implicit subscription of `notifyUrl` (both null without one). */
  implicitId: string | null;
  notifyUrl: string | null;
  createdAt: Date;
  maxAttempts: number;
}

/**
 * `callbacks_queue_transfer_created(…)` as an expression of another domain's statement: the
 * deliveries are queued in the statement that creates the transfer.
 */
export function queueTransferCreatedCall(param: Param, args: TransferCreatedArguments): string {
  return `callbacks_queue_transfer_created(${param(args.partnerId)}, ${param(args.accountId)},
         ${param(args.trigger)}, ${param(args.srns, '::text[]')}, ${param(args.implicitId)},
         ${param(args.notifyUrl)}, ${param(args.createdAt, '::timestamptz')}, ${param(args.maxAttempts, '::int')})`;
}

/** The nine parameters of queueTransfersCreatedCall, in their order: one value per argument. */
export function transfersCreatedValues(all: readonly TransferCreatedArguments[]): unknown[] {
  const srnTransfers: number[] = [];
  const srns: string[] = [];
  all.forEach((args, index) => {
    for (const srn of new Set(args.srns)) {
      srnTransfers.push(index + 1);
      srns.push(srn);
    }
  });
  const each = <K extends keyof TransferCreatedArguments>(key: K) => all.map((args) => args[key]);
  return [
    each('partnerId'),
    each('accountId'),
    each('trigger'),
    each('implicitId'),
    each('notifyUrl'),
    srnTransfers,
    srns,
    each('createdAt'),
    all[0]?.maxAttempts ?? 1,
  ];
}

/**
 * `callbacks_queue_transfers_created(…)` for many transfers as an expression of another domain's
 * statement, transfersCreatedValues at `$first`…: transfer i (1-based) is the i-th of each array.
 */
export function queueTransfersCreatedCall(first: number): string {
  const [partners, accounts, triggers, implicitIds, urls, srnTransfers, srns, createdAt, maxAttempts] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8,
  ].map((offset) => `$${first + offset}`);
  return `callbacks_queue_transfers_created(${partners}::text[], ${accounts}::text[], ${triggers}::text[], ${implicitIds}::text[], ${urls}::text[],
                                      ${srnTransfers}::int[], ${srns}::text[], ${createdAt}::timestamptz[], ${maxAttempts}::int)`;
}

export async function queueTransferCreated(q: Queryable, args: TransferCreatedArguments): Promise<void> {
  await q.query(
    'SELECT callbacks_queue_transfer_created($1, $2, $3, $4::text[], $5, $6, $7::timestamptz, $8)',
    [
      args.partnerId,
      args.accountId,
      args.trigger,
      args.srns,
      args.implicitId,
      args.notifyUrl,
      args.createdAt,
      args.maxAttempts,
    ],
  );
}

/**
 * Takes up to `limit` due deliveries for this worker: a lease and a claim token, so a worker
 * whose lease ran out (it died, or hung) can no longer record an outcome over the new holder's.
 */
export async function claimDueDeliveries(
  db: Db,
  limit: number,
  leaseSeconds: number,
  token: string,
): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `UPDATE callback_deliveries SET locked_until = now() + make_interval(secs => $2), claim_token = $3
     WHERE id IN (
       SELECT id FROM callback_deliveries
       WHERE status = 'PENDING' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING ${COLUMNS}`,
    [limit, leaseSeconds, token],
  );
  return rows;
}

export interface AttemptRecord {
  deliveryId: string;
  startedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export async function insertAttempt(q: Queryable, attempt: AttemptRecord): Promise<void> {
  await q.query(
    `INSERT INTO callback_attempts (delivery_id, started_at, status_code, latency_ms, error)
     VALUES ($1, $2, $3, $4, $5)`,
    [attempt.deliveryId, attempt.startedAt, attempt.statusCode, attempt.latencyMs, attempt.error],
  );
}

/**
 * The delivery's state after an attempt, only while this worker still holds the claim.
 * `retryInMs` null: no retry (DELIVERED on success, FAILED otherwise). Returns false when the
 * claim was lost, so the caller leaves the subscription's counters alone.
 */
export async function finishAttempt(
  q: Queryable,
  deliveryId: string,
  token: string,
  outcome: { delivered: boolean; statusCode: number | null; error: string | null; retryInMs: number | null },
): Promise<boolean> {
  const status: DeliveryStatus = outcome.delivered
    ? 'DELIVERED'
    : outcome.retryInMs === null
      ? 'FAILED'
      : 'PENDING';
  const { rowCount } = await q.query(
    `UPDATE callback_deliveries
     SET status = $3, attempts = attempts + 1, last_error = $4, last_status_code = $5,
         next_attempt_at = CASE WHEN $3 = 'PENDING' THEN now() + make_interval(secs => $6 / 1000.0) ELSE next_attempt_at END,
         locked_until = NULL, claim_token = NULL, updated_at = now()
     WHERE id = $1 AND claim_token = $2 AND status = 'PENDING'`,
    [deliveryId, token, status, outcome.error, outcome.statusCode, outcome.retryInMs ?? 0],
  );
  return rowCount === 1;
}

export async function findDelivery(q: Queryable, id: string): Promise<DeliveryRow | undefined> {
  const { rows } = await q.query<DeliveryRow>(`SELECT ${COLUMNS} FROM callback_deliveries WHERE id = $1`, [
    id,
  ]);
  return rows[0];
}

export async function listDeliveries(
  q: Queryable,
  status: DeliveryStatus | undefined,
  offset: number,
  limit: number,
): Promise<DeliveryRow[]> {
  const { rows } = await q.query<DeliveryRow>(
    `SELECT ${COLUMNS} FROM callback_deliveries WHERE ($1::text IS NULL OR status = $1)
     ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
    [status ?? null, offset, limit],
  );
  return rows;
}

/** Operator resend: due now, with `extraAttempts` more to go. False when it is still PENDING. */
export async function requeueDelivery(q: Queryable, id: string, extraAttempts: number): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE callback_deliveries
     SET status = 'PENDING', max_attempts = attempts + $2, next_attempt_at = now(),
         locked_until = NULL, claim_token = NULL, updated_at = now()
     WHERE id = $1 AND status <> 'PENDING'`,
    [id, extraAttempts],
  );
  return rowCount === 1;
}

export async function attemptsOf(q: Queryable, deliveryId: string) {
  const { rows } = await q.query<{
    started_at: Date;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
  }>(
    `SELECT started_at, status_code, latency_ms, error FROM callback_attempts WHERE delivery_id = $1 ORDER BY id`,
    [deliveryId],
  );
  return rows;
}

/**
 * A page of one partner's deliveries, newest first, after the delivery `after` (keyset; an
 * unknown or foreign `after` gives none): its owner's view in the dashboard.
 */
export async function partnerDeliveriesAfter(
  q: Queryable,
  partnerId: string,
  after: string | undefined,
  limit: number,
): Promise<DeliveryRow[]> {
  const { rows } = await q.query<DeliveryRow>(
    `SELECT ${COLUMNS} FROM callback_deliveries
     WHERE partner_id = $1
       AND ($2::text IS NULL OR (created_at, id) <
         (SELECT created_at, id FROM callback_deliveries WHERE id = $2 AND partner_id = $1))
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    [partnerId, after ?? null, limit],
  );
  return rows;
}

/** One of the partner's deliveries; undefined for another partner's or none. */
export async function findPartnerDelivery(q: Queryable, partnerId: string, id: string) {
  const { rows } = await q.query<DeliveryRow>(
    `SELECT ${COLUMNS} FROM callback_deliveries WHERE id = $1 AND partner_id = $2`,
    [id, partnerId],
  );
  return rows[0];
}
