import type { Queryable } from '../platform/db/pool.ts';

/**
 * Which SRNs name a real customer owner. Each module that owns such records registers a lookup
 * for its SRN type (identity: `account`, users: `user`), so the ledger never reads their tables.
 */
export type OwnerLookup = (q: Queryable, id: string) => Promise<boolean>;

const lookups = new Map<string, OwnerLookup>();

export function registerOwnerType(type: string, lookup: OwnerLookup): void {
  lookups.set(type, lookup);
}

/** `account:AC_…` or `user:US_…` that exists; false for anything else, including system owners. */
export async function customerOwnerExists(q: Queryable, srn: string): Promise<boolean> {
  const colon = srn.indexOf(':');
  if (colon <= 0) return false;
  const lookup = lookups.get(srn.slice(0, colon));
  return lookup ? lookup(q, srn.slice(colon + 1)) : false;
}
