import { type Balances, type BalancesJson, balancesFromJson, balancesJsonOf } from '../ledger/index.ts';
import { rowsInInputOrder } from '../platform/db/grouped-writer.ts';
import type { Queryable } from '../platform/db/pool.ts';
import type { StoredField } from './fields.ts';
import type { OnboardingStatus, ScopeName, ScopeStatus } from './scope-rules.ts';

export interface UserRow {
  id: string;
  partner_id: string;
  owner_account_id: string;
  type: 'INDIVIDUAL';
  fields: Record<string, StoredField>;
  onboarding_status: OnboardingStatus;
  created_at: Date;
}

export interface ScopeRow {
  scope: ScopeName;
  status: ScopeStatus;
  submitted_at: Date | null;
}

const COLUMNS = 'id, partner_id, owner_account_id, type, fields, onboarding_status, created_at';
const ts = (ms: number) => new Date(ms);

export async function insertUser(
  q: Queryable,
  user: {
    id: string;
    partnerId: string;
    ownerAccountId: string;
    fields: Record<string, StoredField>;
    nowMs: number;
  },
): Promise<UserRow> {
  const { rows } = await q.query<UserRow>(
    `INSERT INTO users (id, partner_id, owner_account_id, fields, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${COLUMNS}`,
    [user.id, user.partnerId, user.ownerAccountId, JSON.stringify(user.fields), ts(user.nowMs)],
  );
  return rows[0]!;
}

/** Every read is filtered by the acting partner; `lock` serialises concurrent changes to one user. */
export async function findUser(q: Queryable, partnerId: string, userId: string, lock = false) {
  const { rows } = await q.query<UserRow>(
    `SELECT ${COLUMNS} FROM users WHERE partner_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [partnerId, userId],
  );
  return rows[0];
}

/** For masquerade resolution only: who owns a user, whichever partner asks (the caller compares). */
export async function findUserOwner(q: Queryable, userId: string) {
  const { rows } = await q.query<{ owner_account_id: string }>(
    'SELECT owner_account_id FROM users WHERE id = $1',
    [userId],
  );
  return rows[0] ? { ownerAccountId: rows[0].owner_account_id } : undefined;
}

export async function saveUserFields(
  q: Queryable,
  partnerId: string,
  userId: string,
  fields: Record<string, StoredField>,
  nowMs: number,
) {
  await q.query('UPDATE users SET fields = $3, updated_at = $4 WHERE partner_id = $1 AND id = $2', [
    partnerId,
    userId,
    JSON.stringify(fields),
    ts(nowMs),
  ]);
}

export async function setOnboardingStatus(
  q: Queryable,
  partnerId: string,
  userId: string,
  status: OnboardingStatus,
  nowMs: number,
) {
  await q.query(
    'UPDATE users SET onboarding_status = $3, updated_at = $4 WHERE partner_id = $1 AND id = $2',
    [partnerId, userId, status, ts(nowMs)],
  );
}

export async function listScopes(q: Queryable, partnerId: string, userId: string): Promise<ScopeRow[]> {
  const { rows } = await q.query<ScopeRow>(
    `SELECT scope, status, submitted_at FROM user_scopes WHERE partner_id = $1 AND user_id = $2
     ORDER BY array_position(ARRAY['TRANSFER', 'DEBIT_CARD_L2', 'ACH'], scope)`,
    [partnerId, userId],
  );
  return rows;
}

export interface ScopeTransition {
  partnerId: string;
  userId: string;
  scope: ScopeName;
  from: ScopeStatus | null;
  to: ScopeStatus;
  cause: string;
  detail?: Record<string, unknown>;
  nowMs: number;
}

/** The scope's new status and its history row, always together (callers hold the user's lock). */
export async function recordScopeTransition(q: Queryable, t: ScopeTransition) {
  await q.query(
    `INSERT INTO user_scopes (user_id, partner_id, scope, status, submitted_at, updated_at)
     VALUES ($1, $2, $3, $4, CASE WHEN $4 = 'PENDING' THEN $5::timestamptz END, $5)
     ON CONFLICT (user_id, scope) DO UPDATE SET status = EXCLUDED.status, updated_at = EXCLUDED.updated_at,
       submitted_at = CASE WHEN EXCLUDED.status = 'PENDING' THEN EXCLUDED.updated_at ELSE user_scopes.submitted_at END`,
    [t.userId, t.partnerId, t.scope, t.to, ts(t.nowMs)],
  );
  await q.query(
    `INSERT INTO user_scope_events (user_id, partner_id, scope, from_status, to_status, cause, detail, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [t.userId, t.partnerId, t.scope, t.from, t.to, t.cause, JSON.stringify(t.detail ?? {}), ts(t.nowMs)],
  );
}

export interface UserSnapshot {
  user: UserRow;
  scopes: ScopeRow[];
  hasActivePaymentMethod: boolean;
  depositAddresses: Record<string, string>;
  /** Read through the ledger's function ledger_balances_json_of (migration 015). */
  balances: Balances;
}

export interface UserLookup {
  partnerId: string;
  userId: string;
}

/**
 * Everything a User answer shows, for many users in one round trip (concurrent GETs, grouped
 * in users-service.ts): the read path (GET /v3/users/{id}) is the Users API's hottest, and five
 * separate queries cost more than the work they do. Answers in input order; undefined when the
 * partner has no such user. Balances come from one call of the ledger's ledger_balances_json_of
 * (migration 015) for the whole group.
 */
export async function findUserSnapshots(
  q: Queryable,
  lookups: readonly UserLookup[],
): Promise<(UserSnapshot | undefined)[]> {
  const { rows } = await q.query<
    UserRow & {
      ord: number;
      scopes: { scope: ScopeName; status: ScopeStatus; submitted_at: string | null }[];
      has_pm: boolean;
      addresses: Record<string, string>;
      balances: BalancesJson | null;
    }
  >(
    `WITH found AS (
       SELECT r.ord, u.id, u.partner_id, u.owner_account_id, u.type, u.fields, u.onboarding_status, u.created_at
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(partner_id, user_id, ord)
       JOIN users u ON u.partner_id = r.partner_id AND u.id = r.user_id)
     SELECT found.*,
       (SELECT coalesce(json_agg(json_build_object('scope', s.scope, 'status', s.status, 'submitted_at', s.submitted_at)
                 ORDER BY array_position(ARRAY['TRANSFER', 'DEBIT_CARD_L2', 'ACH'], s.scope)), '[]'::json)
          FROM user_scopes s WHERE s.partner_id = found.partner_id AND s.user_id = found.id) AS scopes,
       EXISTS (SELECT 1 FROM payment_methods p
               WHERE p.partner_id = found.partner_id AND p.user_id = found.id AND p.status = 'ACTIVE') AS has_pm,
       (SELECT coalesce(json_object_agg(d.currency, d.address ORDER BY d.currency), '{}'::json)
          FROM deposit_addresses d WHERE d.partner_id = found.partner_id AND d.owner = 'user:' || found.id) AS addresses,
       b.balances
     FROM found
     LEFT JOIN ${balancesJsonOf("ARRAY(SELECT 'user:' || id FROM found)")} AS b ON b.owner = 'user:' || found.id`,
    [lookups.map((lookup) => lookup.partnerId), lookups.map((lookup) => lookup.userId)],
  );
  return rowsInInputOrder(rows, lookups.length).map((row) => {
    if (!row) return undefined;
    const { ord: _ord, scopes, has_pm, addresses, balances, ...user } = row;
    return {
      user,
      scopes: scopes.map((s) => ({ ...s, submitted_at: s.submitted_at ? new Date(s.submitted_at) : null })),
      hasActivePaymentMethod: has_pm,
      depositAddresses: addresses,
      balances: balancesFromJson(balances ?? []),
    };
  });
}

export interface ReviewRow {
  user_id: string;
  scope: ScopeName;
  status: ScopeStatus;
  submitted_at: Date | null;
  fields: Record<string, StoredField>;
}

/** Operator view across partners: the operator reviews every partner's users. */
export async function listScopesByStatus(
  q: Queryable,
  status: ScopeStatus,
  limit: number,
): Promise<ReviewRow[]> {
  const { rows } = await q.query<ReviewRow>(
    `SELECT s.user_id, s.scope, s.status, s.submitted_at, u.fields
     FROM user_scopes s JOIN users u ON u.id = s.user_id
     WHERE s.status = $1 ORDER BY s.submitted_at NULLS LAST, s.user_id LIMIT $2`,
    [status, limit],
  );
  return rows;
}

/** Operator lookup by id alone: the operator is not a partner, so no partner filter applies. */
export async function findUserForOperator(q: Queryable, userId: string) {
  const { rows } = await q.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1 FOR UPDATE`, [userId]);
  return rows[0];
}

/** A user's standing for a transfer: its TRANSFER scope's status and whether it is closed. */
export interface TransferStanding {
  transferScope: ScopeStatus | null;
  closed: boolean;
}

/** Each user of the partner among `userIds`, by id, in one round trip. */
export async function transferStandings(
  q: Queryable,
  partnerId: string,
  userIds: string[],
): Promise<Map<string, TransferStanding>> {
  const { rows } = await q.query<{ id: string; transfer_scope: ScopeStatus | null; closed: boolean }>(
    `SELECT u.id,
       (SELECT s.status FROM user_scopes s
         WHERE s.partner_id = u.partner_id AND s.user_id = u.id AND s.scope = 'TRANSFER') AS transfer_scope,
       EXISTS (SELECT 1 FROM user_scopes s
         WHERE s.partner_id = u.partner_id AND s.user_id = u.id AND s.status = 'CLOSED') AS closed
     FROM users u WHERE u.partner_id = $1 AND u.id = ANY($2::text[])`,
    [partnerId, userIds],
  );
  return new Map(rows.map((row) => [row.id, { transferScope: row.transfer_scope, closed: row.closed }]));
}

/**
 * A page of the users an account owns (those it may act as through masqueradeAs), newest first,
 * after the user `after` (keyset; a foreign `after` gives none).
 */
export async function ownedUserPageAfter(
  q: Queryable,
  owner: { partnerId: string; accountId: string },
  after: string | undefined,
  limit: number,
): Promise<UserRow[]> {
  const { rows } = await q.query<UserRow>(
    `SELECT ${COLUMNS} FROM users
     WHERE partner_id = $1 AND owner_account_id = $2
       AND ($3::text IS NULL OR (created_at, id) <
         (SELECT created_at, id FROM users WHERE id = $3 AND partner_id = $1 AND owner_account_id = $2))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [owner.partnerId, owner.accountId, after ?? null, limit],
  );
  return rows;
}
