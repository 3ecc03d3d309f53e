import type { Queryable } from '../platform/db/pool.ts';
import type { DisputeRow } from './refunds-store.ts';
import type { OrderStatus } from './store.ts';

/**
 * The SQL of the operator console's order lists: every partner's card orders newest first, or
 * those in one status, and the card disputes; each a page after the last row shown (keyset,
 * migration 088's indexes), so a deep page reads what the first one does.
 */

export interface ListedOrder {
  id: string;
  partner_id: string;
  status: OrderStatus;
  source_amount: string;
  source_currency: string;
  dest_amount: string;
  dest_currency: string;
  email: string;
  created_at: Date;
  /** created_at as PostgreSQL prints it, to the microsecond: the cursor. */
  created_key: string;
}

export async function pageRecentOrders(
  q: Queryable,
  filter: { status?: OrderStatus | undefined },
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<ListedOrder[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.status !== undefined) {
    params.push(filter.status);
    where.push(`status = $${params.length}`);
  }
  if (after !== undefined) {
    params.push(after[0], after[1]);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit);
  const { rows } = await q.query<ListedOrder>(
    `SELECT id, partner_id, status, trim_scale(source_amount)::text AS source_amount, source_currency,
       trim_scale(dest_amount)::text AS dest_amount, dest_currency, email, created_at,
       created_at::text AS created_key
     FROM wallet_orders ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}

export interface ListedDispute extends DisputeRow {
  opened_key: string;
}

/** Card disputes newest first, optionally only those still open. */
export async function pageDisputes(
  q: Queryable,
  filter: { openOnly: boolean },
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<ListedDispute[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.openOnly) where.push(`status = 'OPEN'`);
  if (after !== undefined) {
    params.push(after[0], after[1]);
    where.push(`(opened_at, reference) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit);
  const { rows } = await q.query<ListedDispute>(
    `SELECT *, opened_at::text AS opened_key FROM card_disputes
     ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY opened_at DESC, reference DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}
