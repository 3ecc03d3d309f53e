import type { Queryable } from '../platform/db/pool.ts';

export interface SubscriptionRow {
  id: string;
  partner_id: string;
  account_id: string;
  subscribe_to: string;
  notify_target: string;
  implicit: boolean;
  failure: string | null;
  fail_count: number;
  created_at: Date;
}

const COLUMNS =
  'id, partner_id, account_id, subscribe_to, notify_target, implicit, failure, fail_count, created_at';

export async function insertSubscription(
  q: Queryable,
  row: Omit<SubscriptionRow, 'failure' | 'fail_count'>,
): Promise<SubscriptionRow> {
  const { rows } = await q.query<SubscriptionRow>(
    `INSERT INTO callback_subscriptions (id, partner_id, account_id, subscribe_to, notify_target, implicit, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [
      row.id,
      row.partner_id,
      row.account_id,
      row.subscribe_to,
      row.notify_target,
      row.implicit,
      row.created_at,
    ],
  );
  return rows[0]!;
}

/** The explicit subscriptions a scope sees: the partner's, or only the acting sub-account's own. */
export interface SubscriptionFilter {
  partnerId: string;
  accountId: string | undefined;
}

export async function listSubscriptions(
  q: Queryable,
  filter: SubscriptionFilter,
  offset: number,
  limit: number,
): Promise<{ rows: SubscriptionRow[]; total: number }> {
  const where = `partner_id = $1 AND ($2::text IS NULL OR account_id = $2) AND deleted_at IS NULL AND NOT implicit`;
  const params = [filter.partnerId, filter.accountId ?? null];
  const [page, count] = await Promise.all([
    q.query<SubscriptionRow>(
      `SELECT ${COLUMNS} FROM callback_subscriptions WHERE ${where}
       ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4`,
      [...params, offset, limit],
    ),
    q.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM callback_subscriptions WHERE ${where}`,
      params,
    ),
  ]);
  return { rows: page.rows, total: count.rows[0]?.total ?? 0 };
}

export async function findSubscription(
  q: Queryable,
  filter: SubscriptionFilter,
  id: string,
): Promise<SubscriptionRow | undefined> {
  const { rows } = await q.query<SubscriptionRow>(
    `SELECT ${COLUMNS} FROM callback_subscriptions
     WHERE id = $1 AND partner_id = $2 AND ($3::text IS NULL OR account_id = $3) AND deleted_at IS NULL`,
    [id, filter.partnerId, filter.accountId ?? null],
  );
  return rows[0];
}

/** Marks it deleted (deliveries already queued keep their history); false when not found. */
export async function deleteSubscription(q: Queryable, filter: SubscriptionFilter, id: string, at: Date) {
  const { rowCount } = await q.query(
    `UPDATE callback_subscriptions SET deleted_at = $4
     WHERE id = $1 AND partner_id = $2 AND ($3::text IS NULL OR account_id = $3) AND deleted_at IS NULL`,
    [id, filter.partnerId, filter.accountId ?? null, at],
  );
  return rowCount === 1;
}

/** Held until the transaction ends: one creation at a time per partner. */
export async function lockPartnerSubscriptions(q: Queryable, partnerId: string): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`subscriptions:${partnerId}`]);
}

export async function countExplicitSubscriptions(q: Queryable, partnerId: string): Promise<number> {
  const { rows } = await q.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM callback_subscriptions
     WHERE partner_id = $1 AND deleted_at IS NULL AND NOT implicit`,
    [partnerId],
  );
  return rows[0]?.total ?? 0;
}

/** After an attempt: a failure counts up and keeps its coarse outcome (outcome.ts); a success clears both. */
export async function recordSubscriptionOutcome(q: Queryable, id: string, failure: string | null) {
  await q.query(
    `UPDATE callback_subscriptions
     SET failure = $2, fail_count = CASE WHEN $2::text IS NULL THEN 0 ELSE fail_count + 1 END
     WHERE id = $1`,
    [id, failure],
  );
}
