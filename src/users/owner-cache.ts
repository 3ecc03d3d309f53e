import type { UserOwnerLookup } from '../identity/index.ts';

const MAX_ENTRIES = 10_000;

/**
 * Every masqueraded call asks who owns the user. A user's owner is fixed at creation and users
 * are never deleted or moved, so a positive answer never goes stale and may be kept in process
 * memory (bounded; the oldest entry goes first). Misses are not kept: a user just created on
 * another node must be found on the next call.
 */
export function cachedOwnerLookup(lookup: UserOwnerLookup): UserOwnerLookup {
  const owners = new Map<string, string>();
  return async (q, userId) => {
    const known = owners.get(userId);
    if (known !== undefined) return { ownerAccountId: known };
    const found = await lookup(q, userId);
    if (found) {
      if (owners.size >= MAX_ENTRIES) owners.delete(owners.keys().next().value as string);
      owners.set(userId, found.ownerAccountId);
    }
    return found;
  };
}
