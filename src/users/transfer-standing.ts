import type { Queryable } from '../platform/db/pool.ts';
import type { ScopeStatus } from './scope-rules.ts';
import { findUserOwner } from './users-store.ts';

/**
 * What the transfers module needs to know about users, without reading the users tables
 * itself: whether each exists within the partner, its TRANSFER scope's status and whether it
 * is closed. One round trip for both parties of a transfer.
 */
export interface TransferStanding {
  transferScope: ScopeStatus | null;
  closed: boolean;
}

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

/** For the ledger's owner check (`user:US_…`), across partners: the operator credits any user. */
export async function userExists(q: Queryable, userId: string): Promise<boolean> {
  return (await findUserOwner(q, userId)) !== undefined;
}
