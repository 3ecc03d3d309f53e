import type { Scope } from '../identity/index.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { findUser, listScopes, ownedUserPageAfter, type UserRow } from './users-store.ts';

/** What the partner dashboard shows of a user: never its field values, which are the user's KYC data. */
export interface OwnedUserSummary {
  id: string;
  status: UserRow['onboarding_status'];
  createdAt: Date;
}

const summary = (row: UserRow): OwnedUserSummary => ({
  id: row.id,
  status: row.onboarding_status,
  createdAt: row.created_at,
});

/**
 * The users the acting account owns, by the API's rule (a caller acts only as a user it owns,
 * identity/masquerade.ts), newest first, after the user `after`.
 */
export async function ownedUsersAfter(q: Queryable, scope: Scope, after: string | undefined, limit: number) {
  const rows = await ownedUserPageAfter(q, scope, after, limit);
  return rows.map(summary);
}

/** One user the acting account owns, with its scopes; undefined for anyone else's, as for none. */
export async function ownedUser(q: Queryable, scope: Scope, userId: string) {
  const row = await findUser(q, scope.partnerId, userId);
  if (!row || row.owner_account_id !== scope.accountId) return undefined;
  const scopes = await listScopes(q, scope.partnerId, userId);
  return {
    ...summary(row),
    fieldIds: Object.keys(row.fields),
    scopes: scopes.map((s) => ({ scope: s.scope, status: s.status })),
  };
}
