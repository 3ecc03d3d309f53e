import type { Queryable } from '../platform/db/pool.ts';

/** SQL for wallet orders and their authorization steps (migrations/008_cards.sql). */

export type OrderStatus = 'RUNNING_CHECKS' | 'PROCESSING' | 'COMPLETE' | 'FAILED';

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
  /** Joined from wallet_order_authorizations. */
  auth_method: 'CODES' | '3DS' | null;
}

export type NewOrder = Omit<
  OrderRow,
  | 'hold_id'
  | 'transfer_id'
  | 'error_code'
  | 'error_message'
  | 'created_at'
  | 'updated_at'
  | 'completed_at'
  | 'auth_method'
>;

const SELECT = `SELECT o.*, a.method AS auth_method FROM wallet_orders o
  LEFT JOIN wallet_order_authorizations a ON a.order_id = o.id`;

export async function insertOrder(q: Queryable, order: NewOrder, nowMs: number): Promise<void> {
  const columns = Object.keys(order);
  const values = columns.map((column) => {
    const value = order[column as keyof NewOrder];
    return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
  });
  const placeholders = columns.map((_, index) => `$${index + 1}`);
  await q.query(
    `INSERT INTO wallet_orders (${columns.join(', ')}, created_at, updated_at)
     VALUES (${placeholders.join(', ')}, to_timestamp($${columns.length + 1} / 1000.0), to_timestamp($${columns.length + 1} / 1000.0))`,
    [...values, nowMs],
  );
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

export async function setHold(q: Queryable, id: string, holdId: number): Promise<void> {
  await q.query('UPDATE wallet_orders SET hold_id = $2 WHERE id = $1', [id, holdId]);
}

export async function setStatus(
  q: Queryable,
  id: string,
  change: {
    status: OrderStatus;
    nowMs: number;
    transferId?: string;
    failure?: { code: string; message: string };
  },
): Promise<void> {
  await q.query(
    `UPDATE wallet_orders SET status = $2, updated_at = to_timestamp($3 / 1000.0),
       transfer_id = COALESCE($4, transfer_id), error_code = $5, error_message = $6,
       completed_at = CASE WHEN $2 IN ('COMPLETE', 'FAILED') THEN to_timestamp($3 / 1000.0) ELSE completed_at END
     WHERE id = $1`,
    [
      id,
      change.status,
      change.nowMs,
      change.transferId ?? null,
      change.failure?.code ?? null,
      change.failure?.message ?? null,
    ],
  );
}

export interface AuthorizationRow {
  order_id: string;
  partner_id: string;
  method: 'CODES' | '3DS';
  sms_hash: string | null;
  card2fa_hash: string | null;
  sms_verified: boolean;
  card2fa_verified: boolean;
  attempts: number;
  state: 'PENDING' | 'PASSED' | 'FAILED';
  three_ds_decision: 'APPROVED' | 'DECLINED' | null;
  expires_at: Date;
}

export async function insertAuthorization(
  q: Queryable,
  a: {
    orderId: string;
    partnerId: string;
    method: 'CODES' | '3DS';
    smsHash: string | null;
    card2faHash: string | null;
    expiresAtMs: number;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO wallet_order_authorizations (order_id, partner_id, method, sms_hash, card2fa_hash, state, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'PENDING', to_timestamp($6 / 1000.0))`,
    [a.orderId, a.partnerId, a.method, a.smsHash, a.card2faHash, a.expiresAtMs],
  );
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
