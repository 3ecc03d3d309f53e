import {
  type EntriesArguments,
  type EntryArguments,
  entriesValues,
  type HoldArguments,
  ledgerRefusal,
  placeHoldsCall,
  postEntriesCall,
  postEntryCall,
  settleHoldCall,
  settleHoldsCall,
} from '../ledger/index.ts';
import type { BillingAddress } from '../limits/index.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { insertJobsFromArrays, jobArrays, type NewJob } from '../platform/jobs/queue.ts';

/** SQL for wallet orders and their authorization steps (migrations/008_cards.sql). */

/** CHARGEBACK: a dispute is open or lost on a delivered order's charge (migration 067). */
export type OrderStatus = 'RUNNING_CHECKS' | 'PROCESSING' | 'COMPLETE' | 'FAILED' | 'CHARGEBACK';

export interface OrderRow {
  id: string;
  partner_id: string;
  account_id: string;
  reservation_id: string;
  owner: string;
  owner_user_id: string | null;
  status: OrderStatus;
  order_type: 'DOMESTIC' | 'INTERNATIONAL';
  wallet_type: 'DEBIT_CARD' | 'APPLE_PAY';
  source_currency: string;
  source_amount: string;
  purchase_amount: string;
  dest_currency: string;
  dest_amount: string;
  exchange_rate: string;
  fees: Record<string, string>;
  amount_usd: string;
  dest: string;
  email: string;
  given_name: string;
  family_name: string;
  phone: string;
  reference_id: string | null;
  ip_address: string;
  billing_address: Record<string, string>;
  card_brand: string;
  card_bin: string;
  card_last4: string;
  card_fingerprint: string;
  hold_id: number | null;
  transfer_id: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** When the card was captured; null while the authorization is only held (migration 065). */
  captured_at: Date | null;
  /** Joined from wallet_order_authorizations: the step the issuer asked for, and where it stands. */
  auth_method: 'CODES' | '3DS' | 'PROCESSOR' | null;
  auth_state: 'PENDING' | 'PASSED' | 'FAILED' | null;
}

/** Where a status change's wallet-order webhook goes (POST /v2/digitalwallet/webhook), if anywhere. */
interface WebhookTarget {
  webhook_account_id: string | null;
  webhook_url: string | null;
}

/** A status change's row, with its webhook target. */
export interface ChangedOrderRow extends OrderRow, WebhookTarget {}

/** What a status change's webhook (docs/contract.md, Card orders) says of the order, and its target. */
export type OrderStatusEvent = Pick<
  OrderRow,
  'id' | 'account_id' | 'reference_id' | 'transfer_id' | 'error_code' | 'error_message'
> &
  WebhookTarget;

export type NewOrder = Omit<
  OrderRow,
  | 'hold_id'
  | 'transfer_id'
  | 'error_code'
  | 'error_message'
  | 'created_at'
  | 'updated_at'
  | 'completed_at'
  | 'captured_at'
  | 'auth_method'
  | 'auth_state'
>;

const SELECT = `SELECT o.*, a.method AS auth_method, a.state AS auth_state FROM wallet_orders o
  LEFT JOIN wallet_order_authorizations a ON a.order_id = o.id`;

/** An order row as every read selects it, for the console's reads (console-store.ts). */
export const orderSelect = SELECT;

/** Every column a new order sets, once (the compiler checks none is missing or extra). */
const NEW_ORDER_COLUMNS = {
  id: true,
  partner_id: true,
  account_id: true,
  reservation_id: true,
  owner: true,
  owner_user_id: true,
  status: true,
  order_type: true,
  wallet_type: true,
  source_currency: true,
  source_amount: true,
  purchase_amount: true,
  dest_currency: true,
  dest_amount: true,
  exchange_rate: true,
  fees: true,
  amount_usd: true,
  dest: true,
  email: true,
  given_name: true,
  family_name: true,
  phone: true,
  reference_id: true,
  ip_address: true,
  billing_address: true,
  card_brand: true,
  card_bin: true,
  card_last4: true,
  card_fingerprint: true,
} satisfies Record<keyof NewOrder, true>;
const ORDER_COLUMNS = Object.keys(NEW_ORDER_COLUMNS) as (keyof NewOrder)[];
export interface NewAuthorization {
  method: 'CODES' | '3DS' | 'PROCESSOR';
  smsHash: string | null;
  card2faHash: string | null;
  expiresAtMs: number;
}

/**
 * A new order with its card hold (ledger_place_holds' arguments) and, when the issuer asked for
 * one, its authorization step with its jobs (the one that expires it, a code's delivery), for
 * insertOrders. An order without a step is cleared for the worker.
 */
export interface NewOrderWrite {
  order: NewOrder;
  hold: HoldArguments;
  step?: { authorization: NewAuthorization; jobs: NewJob[] };
}

/** Types of the order columns that are not text, for insertOrders' jsonb_to_recordset. */
const ORDER_COLUMN_TYPES: Partial<Record<keyof NewOrder, string>> = {
  source_amount: 'numeric',
  purchase_amount: 'numeric',
  dest_amount: 'numeric',
  exchange_rate: 'numeric',
  amount_usd: 'numeric',
  fees: 'jsonb',
  billing_address: 'jsonb',
};

/**
 * New orders, one or many (orders placed together), in one statement: `$1` the orders as a jsonb
 * array of objects keyed by column (one parameter: as thirty arrays, serialising them was a good
 * part of the server's CPU per order), then the holds' five arrays (ledger_place_holds, migration
 * 019: the ledger's function, called in our statement), the creation time, the authorization
 * steps' five arrays (orders with a step only) and the jobs' four (insertJobsFromArrays: the job
 * queue's insert, in our statement). The holds lock the
 * `external:card` balance stripe, which every order's hold moves, and that lock is held to
 * COMMIT: the insert is the last thing an order's transaction does.
 */
const INSERT_ORDERS = (() => {
  const columns = ORDER_COLUMNS.map((column) => `${column} ${ORDER_COLUMN_TYPES[column] ?? 'text'}`);
  const param = (offset: number) => `$${1 + offset}`;
  const at = `to_timestamp(${param(6)}::bigint / 1000.0)`;
  return `WITH h AS (
    SELECT ${placeHoldsCall([param(1), param(2), param(3), param(4), param(5)])} AS ids
  ),
  o AS (
    INSERT INTO wallet_orders (${ORDER_COLUMNS.join(', ')}, hold_id, created_at, updated_at)
    SELECT ${ORDER_COLUMNS.map((column) => `n.${column}`).join(', ')}, (SELECT ids FROM h)[n.ord], ${at}, ${at}
    FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (${columns.join(', ')}))
      WITH ORDINALITY AS n(${ORDER_COLUMNS.join(', ')}, ord)
    RETURNING *
  ),
  a AS (
    INSERT INTO wallet_order_authorizations (order_id, partner_id, method, sms_hash, card2fa_hash, state, expires_at)
    SELECT s.order_id, o.partner_id, s.method, s.sms_hash, s.card2fa_hash, 'PENDING', to_timestamp(s.expires_ms / 1000.0)
    FROM unnest(${param(7)}::text[], ${param(8)}::text[], ${param(9)}::text[], ${param(10)}::text[], ${param(11)}::bigint[])
      AS s(order_id, method, sms_hash, card2fa_hash, expires_ms)
    JOIN o ON o.id = s.order_id
    RETURNING order_id, method, state
  ),
  j AS (
    ${insertJobsFromArrays([param(12), param(13), param(14), param(15)])}
  )
  SELECT o.*, a.method AS auth_method, a.state AS auth_state FROM o LEFT JOIN a ON a.order_id = o.id`;
})();

/**
 * The orders with their card holds and authorization steps, and the jobs they queue (jobs.ts
 * jobsOfNewOrders), in one statement; answers the rows (as lockOrder reads them) in the writes'
 * order. The ledger's refusals come back as ledgerRefusal makes them.
 */
export async function insertOrders(
  q: Queryable,
  writes: readonly NewOrderWrite[],
  jobs: readonly NewJob[],
  nowMs: number,
): Promise<OrderRow[]> {
  const values: unknown[] = [JSON.stringify(writes.map(({ order }) => order))];
  const holds = writes.map((write) => write.hold);
  values.push(
    holds.map((hold) => hold.owner),
    holds.map((hold) => hold.currency),
    holds.map((hold) => hold.amount),
    holds.map((hold) => hold.expiresAt),
    holds.map((hold) => hold.reference),
    nowMs,
  );
  const steps = writes.filter((write) => write.step !== undefined);
  const step = (write: NewOrderWrite) => write.step!.authorization;
  values.push(
    steps.map((write) => write.order.id),
    steps.map((write) => step(write).method),
    steps.map((write) => step(write).smsHash),
    steps.map((write) => step(write).card2faHash),
    steps.map((write) => step(write).expiresAtMs),
  );
  values.push(...jobArrays(jobs));
  try {
    const { rows } = await q.query<OrderRow>(INSERT_ORDERS, values);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return writes.map(({ order }) => byId.get(order.id)!);
  } catch (error) {
    throw ledgerRefusal(error);
  }
}

/**
 * The billing addresses of the known orders among `ids`, by order id: the limits domain re-keys
 * past card spend by them (its address re-key, given this through the composition root).
 */
export async function orderBillingAddresses(
  q: Queryable,
  ids: readonly string[],
): Promise<Map<string, BillingAddress>> {
  const { rows } = await q.query<{ id: string; billing_address: BillingAddress }>(
    'SELECT id, billing_address FROM wallet_orders WHERE id = ANY($1::text[])',
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.billing_address]));
}

/** partnerId undefined: the hosted pages and workers, for which the id itself is the capability. */
export async function findOrder(q: Queryable, id: string, partnerId?: string): Promise<OrderRow | undefined> {
  const { rows } = await q.query<OrderRow>(
    `${SELECT} WHERE o.id = $1 ${partnerId === undefined ? '' : 'AND o.partner_id = $2'}`,
    partnerId === undefined ? [id] : [id, partnerId],
  );
  return rows[0];
}

/** The order's row lock: every state change of one order goes through it, one at a time. */
export async function lockOrder(q: Queryable, id: string): Promise<OrderRow | undefined> {
  const { rows } = await q.query<OrderRow>(`${SELECT} WHERE o.id = $1 FOR UPDATE OF o`, [id]);
  return rows[0];
}

/**
 * What the worker reads of an order it processes or settles the delivery of: its state, its hold,
 * its quote and parties (not the contact, card and billing details, nor the timestamps).
 */
export type WorkerOrderRow = Pick<
  OrderRow,
  | 'id'
  | 'status'
  | 'auth_state'
  | 'partner_id'
  | 'account_id'
  | 'owner'
  | 'dest'
  | 'source_currency'
  | 'source_amount'
  | 'purchase_amount'
  | 'dest_currency'
  | 'dest_amount'
  | 'exchange_rate'
  | 'fees'
  | 'hold_id'
  | 'transfer_id'
  | 'captured_at'
>;

/**
 * lockOrder for the orders of a worker batch (processing, or the chain's reports on deliveries):
 * locked in id order, as two batches must, reading only what the worker needs. A step that
 * needs the whole row (failOrder) re-reads it with lockOrder.
 */
export async function lockWorkerOrders(q: Queryable, ids: readonly string[]): Promise<WorkerOrderRow[]> {
  const { rows } = await q.query<WorkerOrderRow>(
    `SELECT o.id, o.status, a.state AS auth_state, o.partner_id, o.account_id, o.owner, o.dest,
       o.source_currency, o.source_amount, o.purchase_amount, o.dest_currency, o.dest_amount,
       o.exchange_rate, o.fees, o.hold_id, o.transfer_id, o.captured_at
     FROM wallet_orders o LEFT JOIN wallet_order_authorizations a ON a.order_id = o.id
     WHERE o.id = ANY($1::text[]) ORDER BY o.id FOR UPDATE OF o`,
    [ids],
  );
  return rows;
}

/**
 * Of the orders named, those PROCESSING, not captured and authorized by `authorizedByMs`, locked
 * in id order as lockWorkerOrders locks them; an order another transaction has locked (its
 * delivery settling, say) is skipped, not waited for: that transaction captures it, or the next
 * sweep does.
 */
export async function lockUncapturedOrders(
  q: Queryable,
  ids: readonly string[],
  authorizedByMs: number,
): Promise<WorkerOrderRow[]> {
  const { rows } = await q.query<WorkerOrderRow>(
    `SELECT o.id, o.status, NULL AS auth_state, o.partner_id, o.account_id, o.owner, o.dest,
       o.source_currency, o.source_amount, o.purchase_amount, o.dest_currency, o.dest_amount,
       o.exchange_rate, o.fees, o.hold_id, o.transfer_id, o.captured_at
     FROM wallet_orders o
     WHERE o.id = ANY($1::text[]) AND o.status = 'PROCESSING' AND o.captured_at IS NULL
       AND o.created_at <= to_timestamp($2::bigint / 1000.0)
     ORDER BY o.id FOR UPDATE OF o SKIP LOCKED`,
    [ids, authorizedByMs],
  );
  return rows;
}

/**
 * Orders captured ahead of their delivery (the sweep): their capture entries settle their holds
 * (ledger_settle_holds, one currency) and `captured_at` is set, in one statement. The status
 * stays PROCESSING, so no webhook goes out.
 */
export async function markCaptured(
  q: Queryable,
  orderIds: readonly string[],
  booked: Required<MovedOrdersEntries>,
  nowMs: number,
): Promise<void> {
  try {
    await q.query(
      `WITH e AS (SELECT ${settleHoldsCall('$3', 4)} AS ids)
       UPDATE wallet_orders SET captured_at = to_timestamp($2::bigint / 1000.0)
       WHERE id = ANY($1::text[]) AND (SELECT ids FROM e) IS NOT NULL`,
      [orderIds, nowMs, booked.holdIds, ...entriesValues(booked.entries)],
    );
  } catch (error) {
    throw ledgerRefusal(error);
  }
}

// $2 is text in both places (status is a domain over text, migration 017).
// A COMPLETE order was captured (decision 110): then, unless the sweep captured it before.
const STATUS_UPDATE = `UPDATE wallet_orders SET status = $2::text, updated_at = to_timestamp($3::bigint / 1000.0),
    transfer_id = COALESCE($4, transfer_id), error_code = $5, error_message = $6,
    completed_at = CASE WHEN $2::text IN ('COMPLETE', 'FAILED')
      THEN COALESCE(completed_at, to_timestamp($3::bigint / 1000.0)) ELSE completed_at END,
    captured_at = CASE WHEN $2::text = 'COMPLETE' THEN coalesce(captured_at, to_timestamp($3::bigint / 1000.0)) ELSE captured_at END
  WHERE id = $1`;

/** The webhook target of changed order `u`: the order's account's, else its partner's. */
const WEBHOOK_TARGET = `LATERAL (
    SELECT account_id, url FROM wallet_order_webhooks
    WHERE partner_id = u.partner_id AND account_id IN (u.account_id, u.partner_id)
    ORDER BY account_id = u.account_id DESC LIMIT 1) w`;

/** The changed row with its step and its webhook target. */
const CHANGED = `SELECT u.*, a.method AS auth_method, a.state AS auth_state,
    w.account_id AS webhook_account_id, w.url AS webhook_url
  FROM u LEFT JOIN wallet_order_authorizations a ON a.order_id = u.id
  LEFT JOIN ${WEBHOOK_TARGET} ON true`;

const SET_STATUS = `WITH u AS (${STATUS_UPDATE} RETURNING *) ${CHANGED}`;

/**
 * The same, with the change's ledger entry written first (migration 010's functions): a plain
 * entry (ledger_post_entry), or one settling a pending hold (ledger_settle_hold).
 */
const withEntry = (call: string) => `WITH e AS (SELECT ${call} AS id),
  u AS (${STATUS_UPDATE} AND (SELECT id FROM e) IS NOT NULL RETURNING *)
  ${CHANGED}`;
const SET_STATUS_POSTING = withEntry(postEntryCall(7));
const SET_STATUS_SETTLING = withEntry(settleHoldCall('$13', 7));

/** A status change's ledger entry; with `settlesHold`, the entry settles that pending hold. */
export interface StatusEntry {
  entry: EntryArguments;
  settlesHold?: number | undefined;
}

/**
 * Changes the status and answers the changed row with the webhook target of its event (POST
 * /v2/digitalwallet/webhook), and with `ledger` books the change's ledger entry, all in one round
 * trip. The ledger's refusals come back as ledgerRefusal makes them.
 */
export async function setStatus(
  q: Queryable,
  id: string,
  change: {
    status: OrderStatus;
    nowMs: number;
    transferId?: string | undefined;
    failure?: { code: string; message: string } | undefined;
    ledger?: StatusEntry | undefined;
  },
): Promise<ChangedOrderRow> {
  const values: unknown[] = [
    id,
    change.status,
    change.nowMs,
    change.transferId ?? null,
    change.failure?.code ?? null,
    change.failure?.message ?? null,
  ];
  let text = SET_STATUS;
  if (change.ledger) {
    const { entry, settlesHold } = change.ledger;
    values.push(entry.kind, entry.reference, entry.memo, entry.owners, entry.currencies, entry.amounts);
    if (settlesHold === undefined) text = SET_STATUS_POSTING;
    else {
      values.push(settlesHold);
      text = SET_STATUS_SETTLING;
    }
  }
  try {
    const { rows } = await q.query<ChangedOrderRow>(text, values);
    return rows[0]!;
  } catch (error) {
    throw ledgerRefusal(error);
  }
}

/** Orders moved together (setStatuses): each one's id, and its transfer id when it gets one. */
export interface MovedOrder {
  id: string;
  transferId?: string;
}

/**
 * Their entries booked together: posted as they are (ledger_post_entries, migration 010), or
 * entry i settling hold i each (`holdIds`; ledger_settle_holds, migrations 020 and 066: the holds
 * share one owner and currency; the entries after the holds' own are posted as they are).
 */
export interface MovedOrdersEntries {
  entries: EntriesArguments;
  holdIds?: number[];
}

type Booking = 'settling' | 'posting' | 'none';

const bookEntries: Record<Booking, string> = {
  settling: `e AS (SELECT ${settleHoldsCall('$5', 6)} AS ids),`,
  posting: `e AS (SELECT ${postEntriesCall(5)} AS ids),`,
  none: '',
};

const setStatusesText = (booking: Booking) => `WITH ${bookEntries[booking]}
  c AS (SELECT * FROM unnest($1::text[], $2::text[]) AS c(id, transfer_id)),
  u AS (
    UPDATE wallet_orders AS o SET status = $3::text, updated_at = to_timestamp($4::bigint / 1000.0),
      transfer_id = coalesce(c.transfer_id, o.transfer_id),
      completed_at = CASE WHEN $3::text IN ('COMPLETE', 'FAILED') THEN to_timestamp($4::bigint / 1000.0) ELSE o.completed_at END,
      captured_at = CASE WHEN $3::text = 'COMPLETE' THEN coalesce(o.captured_at, to_timestamp($4::bigint / 1000.0)) ELSE o.captured_at END
    FROM c
    -- id = ANY: primary-key probes, not a join against the whole table.
    WHERE o.id = ANY($1::text[]) AND o.id = c.id ${booking === 'none' ? '' : 'AND (SELECT ids FROM e) IS NOT NULL'}
    RETURNING o.id, o.partner_id, o.account_id, o.reference_id, o.transfer_id, o.error_code, o.error_message
  )
  SELECT u.id, u.account_id, u.reference_id, u.transfer_id, u.error_code, u.error_message,
    w.account_id AS webhook_account_id, w.url AS webhook_url
  FROM u JOIN ${WEBHOOK_TARGET} ON true`;
const SET_STATUSES = {
  settling: setStatusesText('settling'),
  posting: setStatusesText('posting'),
  none: setStatusesText('none'),
};

/**
 * setStatus for many orders in one statement, with their ledger entries if any (`booked`): the
 * entries are booked together (every balance row moves once), then the orders move to `status`.
 * Answers the
 * webhook events of the changed orders that have a webhook target, in no particular order: a
 * worker batch reads back only what its webhooks need (the whole rows were a good part of its
 * CPU, and are read for nothing when no partner registered a webhook).
 */
export async function setStatuses(
  q: Queryable,
  orders: readonly MovedOrder[],
  booked: MovedOrdersEntries | undefined,
  status: OrderStatus,
  nowMs: number,
): Promise<OrderStatusEvent[]> {
  const booking: Booking = !booked ? 'none' : booked.holdIds ? 'settling' : 'posting';
  try {
    const result = await q.query<OrderStatusEvent>(SET_STATUSES[booking], [
      orders.map((order) => order.id),
      orders.map((order) => order.transferId ?? null),
      status,
      nowMs,
      ...(booked?.holdIds ? [booked.holdIds] : []),
      ...(booked ? entriesValues(booked.entries) : []),
    ]);
    return result.rows;
  } catch (error) {
    throw ledgerRefusal(error);
  }
}

export interface AuthorizationRow {
  order_id: string;
  partner_id: string;
  method: 'CODES' | '3DS' | 'PROCESSOR';
  sms_hash: string | null;
  card2fa_hash: string | null;
  sms_verified: boolean;
  card2fa_verified: boolean;
  attempts: number;
  state: 'PENDING' | 'PASSED' | 'FAILED';
  three_ds_decision: 'APPROVED' | 'DECLINED' | null;
  expires_at: Date;
}

export async function findAuthorization(
  q: Queryable,
  orderId: string,
): Promise<AuthorizationRow | undefined> {
  const { rows } = await q.query<AuthorizationRow>(
    'SELECT * FROM wallet_order_authorizations WHERE order_id = $1',
    [orderId],
  );
  return rows[0];
}

export async function updateAuthorization(
  q: Queryable,
  orderId: string,
  change: Partial<
    Pick<AuthorizationRow, 'sms_verified' | 'card2fa_verified' | 'attempts' | 'state' | 'three_ds_decision'>
  >,
  nowMs: number,
): Promise<void> {
  const entries = Object.entries(change);
  const sets = entries.map(([column], index) => `${column} = $${index + 4}`);
  const decided = change.state !== undefined && change.state !== 'PENDING';
  await q.query(
    `UPDATE wallet_order_authorizations SET ${sets.join(', ')},
       decided_at = CASE WHEN $3::boolean THEN to_timestamp($2 / 1000.0) ELSE decided_at END
     WHERE order_id = $1`,
    [orderId, nowMs, decided, ...entries.map(([, value]) => value)],
  );
}

/**
 * A pending step becomes another (a remote processor's answer asks for 3-D Secure or codes),
 * pending with fresh attempts and expiry; a code not asked for counts as verified.
 */
export async function replaceAuthorizationStep(
  q: Queryable,
  orderId: string,
  step: NewAuthorization,
): Promise<void> {
  await q.query(
    `UPDATE wallet_order_authorizations SET method = $2, sms_hash = $3, card2fa_hash = $4,
       sms_verified = $3::text IS NULL, card2fa_verified = $4::text IS NULL, attempts = 0,
       expires_at = to_timestamp($5::bigint / 1000.0)
     WHERE order_id = $1 AND state = 'PENDING'`,
    [orderId, step.method, step.smsHash, step.card2faHash, step.expiresAtMs],
  );
}

/** A failed order's step, if still pending, fails with it (one conditional update). */
export async function failPendingAuthorization(q: Queryable, orderId: string, nowMs: number): Promise<void> {
  await q.query(
    `UPDATE wallet_order_authorizations SET state = 'FAILED', decided_at = to_timestamp($2::bigint / 1000.0)
     WHERE order_id = $1 AND state = 'PENDING'`,
    [orderId, nowMs],
  );
}

/** Whose orders a list shows: one account's, and when masquerading as a user, that user's among them. */
export interface OrderListFilter {
  partnerId: string;
  accountId: string;
  ownerUserId: string | undefined;
}

/** A page of an account's card orders, newest first, with the count of all of them. */
export async function pageOrders(
  q: Queryable,
  filter: OrderListFilter,
  offset: number,
  limit: number,
): Promise<{ rows: OrderRow[]; total: number }> {
  const where = `o.account_id = $1 AND o.partner_id = $2 AND ($3::text IS NULL OR o.owner_user_id = $3)`;
  const params = [filter.accountId, filter.partnerId, filter.ownerUserId ?? null];
  const [page, count] = await Promise.all([
    q.query<OrderRow>(`${SELECT} WHERE ${where} ORDER BY o.created_at DESC, o.id DESC OFFSET $4 LIMIT $5`, [
      ...params,
      offset,
      limit,
    ]),
    q.query<{ total: number }>(`SELECT count(*)::int AS total FROM wallet_orders o WHERE ${where}`, params),
  ]);
  return { rows: page.rows, total: count.rows[0]!.total };
}

/**
 * A page of an account's card orders, newest first, after the order `after` (keyset: the
 * dashboard's pages cost the same however deep; an `after` that is not the account's own order
 * gives an empty page). No count.
 */
export async function orderPageAfter(
  q: Queryable,
  filter: OrderListFilter,
  after: string | undefined,
  limit: number,
): Promise<OrderRow[]> {
  const { rows } = await q.query<OrderRow>(
    `${SELECT} WHERE o.account_id = $1 AND o.partner_id = $2 AND ($3::text IS NULL OR o.owner_user_id = $3)
       AND ($4::text IS NULL OR (o.created_at, o.id) <
         (SELECT created_at, id FROM wallet_orders WHERE id = $4 AND account_id = $1 AND partner_id = $2))
     ORDER BY o.created_at DESC, o.id DESC LIMIT $5`,
    [filter.accountId, filter.partnerId, filter.ownerUserId ?? null, after ?? null, limit],
  );
  return rows;
}

/** Where an account's wallet-order events go (POST /v2/digitalwallet/webhook): a new URL replaces the old. */
export async function saveOrderWebhook(
  q: Queryable,
  webhook: { accountId: string; partnerId: string; url: string; nowMs: number },
): Promise<void> {
  await q.query(
    `INSERT INTO wallet_order_webhooks (account_id, partner_id, url, created_at, updated_at)
     VALUES ($1, $2, $3, to_timestamp($4 / 1000.0), to_timestamp($4 / 1000.0))
     ON CONFLICT (account_id) DO UPDATE SET url = EXCLUDED.url, updated_at = EXCLUDED.updated_at`,
    [webhook.accountId, webhook.partnerId, webhook.url, webhook.nowMs],
  );
}
