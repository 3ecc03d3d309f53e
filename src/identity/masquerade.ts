import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { isId } from '../platform/ids.ts';
import { findAccountWithin } from './accounts-store.ts';
import { authErrors } from './errors.ts';
import type { CallerAccount } from './types.ts';

export type MasqueradeTarget = { kind: 'account'; id: string } | { kind: 'user'; id: string };

/**
 * docs/contract.md, Authentication: `user:US_…` is a user; `account:AC_…` or a bare value is an account id (so a bare
 * `US_…` is looked up as an account and simply not found). Anything else is refused.
 */
export function parseMasqueradeAs(value: string): MasqueradeTarget | undefined {
  const colon = value.indexOf(':');
  if (colon === -1) return { kind: 'account', id: value };
  const type = value.slice(0, colon).toLowerCase();
  const id = value.slice(colon + 1);
  if (type === 'account') return { kind: 'account', id };
  if (type === 'user') return { kind: 'user', id };
  return undefined;
}

/**
 * Finds who owns a user: the users module's lookup, which the composition root hands to identity
 * so identity never reads the users table.
 */
export type UserOwnerLookup = (
  q: Queryable,
  userId: string,
) => Promise<{ ownerAccountId: string } | undefined>;

/** What partner access is given besides the base context. */
export interface IdentityDeps extends AppContext {
  userOwners: UserOwnerLookup;
}

export interface ResolvedTarget {
  accountId: string;
  userId?: string;
}

/**
 * Allowed only where the caller is the parent: the target is its own sub-account or its user
 * (or the caller itself). Unknown and foreign targets get the same 403, so the answer never
 * tells whether another partner's id exists.
 */
export async function resolveMasquerade(
  userOwners: UserOwnerLookup,
  q: Queryable,
  caller: CallerAccount,
  target: MasqueradeTarget,
): Promise<ResolvedTarget> {
  if (target.kind === 'account') {
    if (target.id === caller.id) return { accountId: caller.id };
    if (!isId(target.id, 'AC')) throw authErrors.masqueradeDenied();
    const account = await findAccountWithin(q, caller.partnerId, target.id);
    if (!account || account.parent_id !== caller.id) throw authErrors.masqueradeDenied();
    return { accountId: account.id };
  }
  if (!isId(target.id, 'US')) throw authErrors.masqueradeDenied();
  const owner = await userOwners(q, target.id);
  if (!owner || owner.ownerAccountId !== caller.id) throw authErrors.masqueradeDenied();
  return { accountId: caller.id, userId: target.id };
}
