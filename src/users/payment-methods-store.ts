import type { Queryable } from '../platform/db/pool.ts';

export type PaymentMethodStatus = 'PENDING' | 'ACTIVE' | 'REJECTED' | 'DISABLED';

export interface PaymentMethodRow {
  id: string;
  partner_id: string;
  /** The owning SRN: `account:AC_…` or `user:US_…`. */
  owner: string;
  /** Set for a user's method (the ACH scope reads it), null for an account's. */
  user_id: string | null;
  link_type: 'LOCAL_TRANSFER' | 'INTERNATIONAL_TRANSFER';
  payment_type: string | null;
  status: PaymentMethodStatus;
  status_message: string | null;
  country: string;
  currency: string;
  account_type: 'CHECKING' | 'SAVINGS';
  beneficiary_type: 'INDIVIDUAL' | 'CORPORATE';
  first_name_on_account: string;
  last_name_on_account: string;
  /** The ABA routing number, a wire's bank code, or null (a CLABE carries its bank). */
  routing_number: string | null;
  account_number_sealed: Buffer;
  last4: string;
  /** A wire beneficiary's address and company name, as sent. */
  beneficiary: Record<string, string>;
  created_at: Date;
}

const COLUMNS = `id, partner_id, owner, user_id, link_type, payment_type, status, status_message, country, currency,
  account_type, beneficiary_type, first_name_on_account, last_name_on_account, routing_number, account_number_sealed,
  last4, beneficiary, created_at`;

export type NewPaymentMethod = Omit<PaymentMethodRow, 'created_at' | 'status' | 'status_message'>;

export async function insertPaymentMethod(
  q: Queryable,
  pm: NewPaymentMethod,
  now: Date,
): Promise<PaymentMethodRow> {
  const { rows } = await q.query<PaymentMethodRow>(
    `INSERT INTO payment_methods (id, partner_id, owner, user_id, link_type, payment_type, status, country, currency,
       account_type, beneficiary_type, first_name_on_account, last_name_on_account, routing_number,
       account_number_sealed, last4, beneficiary, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
     RETURNING ${COLUMNS}`,
    [
      pm.id,
      pm.partner_id,
      pm.owner,
      pm.user_id,
      pm.link_type,
      pm.payment_type,
      pm.country,
      pm.currency,
      pm.account_type,
      pm.beneficiary_type,
      pm.first_name_on_account,
      pm.last_name_on_account,
      pm.routing_number,
      pm.account_number_sealed,
      pm.last4,
      JSON.stringify(pm.beneficiary),
      now,
    ],
  );
  return rows[0]!;
}

/** One method of `owner` (an SRN) in the partner. */
export async function findPaymentMethod(
  q: Queryable,
  partnerId: string,
  owner: string,
  id: string,
  lock = false,
) {
  const { rows } = await q.query<PaymentMethodRow>(
    `SELECT ${COLUMNS} FROM payment_methods WHERE partner_id = $1 AND owner = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
    [partnerId, owner, id],
  );
  return rows[0];
}

/** By id within the partner, whoever owns it: jobs (verification) and transfers (bank parties). */
export async function findPartnerPaymentMethod(q: Queryable, partnerId: string, id: string, lock = false) {
  const { rows } = await q.query<PaymentMethodRow>(
    `SELECT ${COLUMNS} FROM payment_methods WHERE partner_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [partnerId, id],
  );
  return rows[0];
}

export async function listPaymentMethods(
  q: Queryable,
  partnerId: string,
  owner: string,
  offset: number,
  limit: number,
) {
  const { rows } = await q.query<PaymentMethodRow & { total: number }>(
    `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM payment_methods
     WHERE partner_id = $1 AND owner = $2 AND status <> 'DISABLED'
     ORDER BY created_at, id OFFSET $3 LIMIT $4`,
    [partnerId, owner, offset, limit],
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
  status: PaymentMethodStatus,
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

/** The owning user of a method, if a user owns it (the verification locks the user first). */
export async function paymentMethodUserId(q: Queryable, partnerId: string, id: string) {
  const { rows } = await q.query<{ user_id: string | null }>(
    'SELECT user_id FROM payment_methods WHERE partner_id = $1 AND id = $2',
    [partnerId, id],
  );
  return rows[0]?.user_id ?? undefined;
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
