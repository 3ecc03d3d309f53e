import type { Queryable } from '../platform/db/pool.ts';
import { type OrderRow, orderSelect } from './store.ts';

/**
 * The operator console's reads of card orders (docs/contract.md, decision 145): by id, by the
 * reservation it used, by the buyer's e-mail (wallet_orders_email), and an account's or a user's
 * orders as keyset pages, newest first, whose cursor is the last order's id.
 */

export async function consoleOrderByReservation(q: Queryable, reservationId: string) {
  const { rows } = await q.query<OrderRow>(`${orderSelect} WHERE o.reservation_id = $1`, [reservationId]);
  return rows[0];
}

export async function consoleOrdersByEmail(q: Queryable, email: string, limit: number) {
  const { rows } = await q.query<OrderRow>(
    `${orderSelect} WHERE lower(o.email) = lower($1) ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
    [email, limit],
  );
  return rows;
}

/** An account's orders (wallet_orders_account), newest first. */
export async function consoleOrdersOfAccount(
  q: Queryable,
  accountId: string,
  after: string | undefined,
  limit: number,
) {
  const { rows } = await q.query<OrderRow>(
    `${orderSelect} WHERE o.account_id = $1
       ${after === undefined ? '' : 'AND (o.created_at, o.id) < (SELECT created_at, id FROM wallet_orders WHERE id = $3)'}
     ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
    after === undefined ? [accountId, limit] : [accountId, limit, after],
  );
  return rows;
}

/** A user's orders (wallet_orders_owner_user), newest first. */
export async function consoleOrdersOfUser(q: Queryable, userId: string, limit: number) {
  const { rows } = await q.query<OrderRow>(
    `${orderSelect} WHERE o.owner_user_id = $1 ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
    [userId, limit],
  );
  return rows;
}
