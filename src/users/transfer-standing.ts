import type { Queryable } from '../platform/db/pool.ts';
import { findUserOwner } from './users-store.ts';

/**
 * What the transfers module needs to know about users, without reading the users tables
 * itself: whether each exists within the partner, its TRANSFER scope's status and whether it
 * is closed (transferStandings: one round trip for both parties of a transfer).
 */
export { type TransferStanding, transferStandings } from './users-store.ts';

/** For the ledger's owner check (`user:US_…`), across partners: the operator credits any user. */
export async function userExists(q: Queryable, userId: string): Promise<boolean> {
  return (await findUserOwner(q, userId)) !== undefined;
}
