import type { Queryable } from '../platform/db/pool.ts';

export interface PaymentMethodRow {
  id: string;
  partner_id: string;
  user_id: string;
  link_type: 'LOCAL_TRANSFER';
  status: 'PENDING' | 'ACTIVE' | 'REJECTED' | 'DISABLED';
  status_message: string | null;
  country: string;
  currency: string;
  account_type: 'CHECKING' | 'SAVINGS';
  beneficiary_type: 'INDIVIDUAL' | 'CORPORATE';
  first_name_on_account: string;
  last_name_on_account: string;
  routing_number: string;
  account_number_sealed: Buffer;
  last4: string;
  created_at: Date;
}

const COLUMNS = `id, partner_id, user_id, link_type, status, status_message, country, currency, account_type,
  beneficiary_type, first_name_on_account, last_name_on_account, routing_number, account_number_sealed, last4, created_at`;

export type NewPaymentMethod = Omit<
  PaymentMethodRow,
  'created_at' | 'status' | 'status_message' | 'link_type'
>;

export async function insertPaymentMethod(
  q: Queryable,
  pm: NewPaymentMethod,
  now: Date,
): Promise<PaymentMethodRow> {
  const { rows } = await q.query<PaymentMethodRow>(
    `INSERT INTO payment_methods (id, partner_id, user_id, link_type, status, country, currency, account_type,
       beneficiary_type, first_name_on_account, last_name_on_account, routing_number, account_number_sealed, last4,
       created_at, updated_at)
     VALUES ($1, $2, $3, 'LOCAL_TRANSFER', 'PENDING', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
     RETURNING ${COLUMNS}`,
    [
      pm.id,
      pm.partner_id,
      pm.user_id,
      pm.country,
      pm.currency,
      pm.account_type,
      pm.beneficiary_type,
      pm.first_name_on_account,
      pm.last_name_on_account,
      pm.routing_number,
      pm.account_number_sealed,
      pm.last4,
      now,
    ],
  );
  return rows[0]!;
}

export async function findPaymentMethod(
  q: Queryable,
  partnerId: string,
  userId: string,
  id: string,
  lock = false,
) {
  const { rows } = await q.query<PaymentMethodRow>(
    `SELECT ${COLUMNS} FROM payment_methods WHERE partner_id = $1 AND user_id = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
    [partnerId, userId, id],
  );
  return rows[0];
}

/** The verification job knows only the id; it carries the partner in its payload to stay filtered. */
export async function lockPaymentMethodForVerification(q: Queryable, partnerId: string, id: string) {
  const { rows } = await q.query<PaymentMethodRow>(
    `SELECT ${COLUMNS} FROM payment_methods WHERE partner_id = $1 AND id = $2 FOR UPDATE`,
    [partnerId, id],
  );
  return rows[0];
}

export async function listPaymentMethods(
  q: Queryable,
  partnerId: string,
  userId: string,
  offset: number,
  limit: number,
) {
  const { rows } = await q.query<PaymentMethodRow & { total: number }>(
    `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM payment_methods
     WHERE partner_id = $1 AND user_id = $2 AND status <> 'DISABLED'
     ORDER BY created_at, id OFFSET $3 LIMIT $4`,
    [partnerId, userId, offset, limit],
  );
  return rows;
}

export async function countPaymentMethods(q: Queryable, partnerId: string, userId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM payment_methods WHERE partner_id = $1 AND user_id = $2 AND status <> 'DISABLED'`,
    [partnerId, userId],
  );
  return rows[0]?.n ?? 0;
}

export async function setPaymentMethodStatus(
  q: Queryable,
  partnerId: string,
  id: string,
  status: PaymentMethodRow['status'],
  message: string | null,
  now: Date,
) {
  const { rows } = await q.query<PaymentMethodRow>(
    `UPDATE payment_methods SET status = $3, status_message = $4, updated_at = $5
     WHERE partner_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [partnerId, id, status, message, now],
  );
  return rows[0]!;
}

export async function hasActivePaymentMethod(
  q: Queryable,
  partnerId: string,
  userId: string,
): Promise<boolean> {
  const { rows } = await q.query(
    `SELECT 1 FROM payment_methods WHERE partner_id = $1 AND user_id = $2 AND status = 'ACTIVE' LIMIT 1`,
    [partnerId, userId],
  );
  return rows.length > 0;
}
