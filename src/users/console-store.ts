import type { Queryable } from '../platform/db/pool.ts';
import type { StoredField } from './fields.ts';
import type { OnboardingStatus, ScopeName, ScopeStatus } from './scope-rules.ts';

/**
 * The operator console's reads of users, their scopes, scope history and payment methods
 * (docs/contract.md, decision 145). The operator is no partner, so none filters by partner; every
 * lookup is by an indexed exact value (migration 085) and every list is a keyset page whose cursor
 * is the last row's id.
 */

export interface ConsoleUserRow {
  id: string;
  partner_id: string;
  owner_account_id: string;
  fields: Record<string, StoredField>;
  onboarding_status: OnboardingStatus;
  created_at: Date;
  updated_at: Date;
}

const USER_COLUMNS = 'id, partner_id, owner_account_id, fields, onboarding_status, created_at, updated_at';

export async function consoleUser(q: Queryable, userId: string): Promise<ConsoleUserRow | undefined> {
  const { rows } = await q.query<ConsoleUserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [userId]);
  return rows[0];
}

/** Users whose `email` field is this address, compared lower-cased (users_email). */
export async function consoleUsersByEmail(q: Queryable, email: string, limit: number) {
  const { rows } = await q.query<ConsoleUserRow>(
    `SELECT ${USER_COLUMNS} FROM users WHERE lower(fields -> 'email' ->> 'value') = lower($1)
     ORDER BY created_at DESC, id LIMIT $2`,
    [email, limit],
  );
  return rows;
}

/** An account's users, newest first, after the user `after` (users_partner narrows to the partner). */
export async function consoleUsersOfAccount(
  q: Queryable,
  partnerId: string,
  accountId: string,
  after: string | undefined,
  limit: number,
) {
  const { rows } = await q.query<ConsoleUserRow>(
    `SELECT ${USER_COLUMNS} FROM users
     WHERE partner_id = $1 AND owner_account_id = $2
       ${after === undefined ? '' : 'AND (created_at, id) < (SELECT created_at, id FROM users WHERE id = $4)'}
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    after === undefined ? [partnerId, accountId, limit] : [partnerId, accountId, limit, after],
  );
  return rows;
}

export interface ConsoleScopeRow {
  scope: ScopeName;
  status: ScopeStatus;
  submitted_at: Date | null;
  updated_at: Date;
}

export async function consoleScopes(q: Queryable, userId: string): Promise<ConsoleScopeRow[]> {
  const { rows } = await q.query<ConsoleScopeRow>(
    'SELECT scope, status, submitted_at, updated_at FROM user_scopes WHERE user_id = $1 ORDER BY scope',
    [userId],
  );
  return rows;
}

export interface ScopeEventRow {
  id: string;
  scope: ScopeName;
  from_status: ScopeStatus | null;
  to_status: ScopeStatus;
  cause: string;
  detail: Record<string, unknown>;
  at: Date;
}

/** A user's scope history, oldest first (at most `limit`: a user's history is short). */
export async function consoleScopeEvents(q: Queryable, userId: string, limit: number) {
  const { rows } = await q.query<ScopeEventRow>(
    `SELECT id::text, scope, from_status, to_status, cause, detail, at FROM user_scope_events
     WHERE user_id = $1 ORDER BY id LIMIT $2`,
    [userId, limit],
  );
  return rows;
}

export interface PendingScopeRow {
  user_id: string;
  partner_id: string;
  scope: ScopeName;
  submitted_at: Date;
}

/**
 * The review queue: scopes awaiting review, oldest submission first (user_scopes_status). The
 * cursor is the last row's `userId:scope`; PENDING rows always carry submitted_at.
 */
export async function consolePendingScopes(
  q: Queryable,
  after: { userId: string; scope: string } | undefined,
  limit: number,
): Promise<PendingScopeRow[]> {
  const { rows } = await q.query<PendingScopeRow>(
    `SELECT user_id, partner_id, scope, submitted_at FROM user_scopes
     WHERE status = 'PENDING'
       ${
         after === undefined
           ? ''
           : `AND (submitted_at, user_id, scope) >
                (SELECT submitted_at, user_id, scope FROM user_scopes WHERE user_id = $2 AND scope = $3)`
       }
     ORDER BY submitted_at, user_id, scope LIMIT $1`,
    after === undefined ? [limit] : [limit, after.userId, after.scope],
  );
  return rows;
}

/** Whose a payment method is: the search's answer for a PA_ id. */
export async function consolePaymentMethodOwner(q: Queryable, id: string) {
  const { rows } = await q.query<{ id: string; partner_id: string; owner: string; status: string }>(
    'SELECT id, partner_id, owner, status FROM payment_methods WHERE id = $1',
    [id],
  );
  return rows[0];
}
