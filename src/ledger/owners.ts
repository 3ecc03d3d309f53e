import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/pool.ts';

/** Whether a record with this id exists, in the table of the module that owns that SRN type. */
export type OwnerLookup = (q: Queryable, id: string) => Promise<boolean>;

/**
 * Which SRNs name a real customer owner: the composition root gives the ledger the lookup of each
 * module that owns such records (identity: `account`, users: `user`, wallets: `wallet`), so the
 * ledger never reads their tables.
 */
export interface OwnerLookups {
  account: OwnerLookup;
  user: OwnerLookup;
  wallet: OwnerLookup;
}

/** What the ledger's operator functions are given. */
export interface LedgerDeps extends AppContext {
  owners: OwnerLookups;
}

/** `account:AC_…`, `user:US_…` or `wallet:WA_…` that exists; false for anything else, including system owners. */
export async function customerOwnerExists(owners: OwnerLookups, q: Queryable, srn: string): Promise<boolean> {
  const colon = srn.indexOf(':');
  if (colon <= 0) return false;
  const type = srn.slice(0, colon);
  if (type !== 'account' && type !== 'user' && type !== 'wallet') return false;
  return owners[type](q, srn.slice(colon + 1));
}
