import { authErrors, type Scope } from '../identity/index.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { userErrors } from './errors.ts';
import { findUser, type UserRow } from './users-store.ts';

/** docs/contract.md, Users and KYC: only a master account whose Users API the operator switched on, acting as itself. */
export function requireUsersApi(scope: Scope): void {
  const account = scope.caller.account;
  if (account?.kind !== 'master' || !account.usersApiEnabled) throw authErrors.usersApiDisabled();
  if (scope.accountId !== account.id) throw authErrors.notMaster();
}

/** A user-level call: Users API on, and masquerading as exactly this user. */
export function checkUserAccess(scope: Scope, userId: string): void {
  requireUsersApi(scope);
  if (scope.userId !== userId) throw userErrors.masqueradeRequired();
}

/**
 * The user a user-level call acts on. docs/contract.md (Authentication): these calls masquerade as `user:<id>` of the same
 * user as the path; masquerade resolution already refused users of other partners with the same
 * 403 as unknown ones, so nothing here tells whether someone else's id exists.
 */
export async function actingUser(q: Queryable, scope: Scope, userId: string, lock = false): Promise<UserRow> {
  checkUserAccess(scope, userId);
  const user = await findUser(q, scope.partnerId, userId, lock);
  if (!user) throw userErrors.masqueradeRequired();
  return user;
}
