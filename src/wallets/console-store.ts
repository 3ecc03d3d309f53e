import type { Queryable } from '../platform/db/pool.ts';

/** The operator console's read of a wallet by id, whoever's it is (docs/contract.md, decision 145). */
export async function consoleWallet(q: Queryable, id: string) {
  const { rows } = await q.query<{
    id: string;
    partner_id: string;
    owner: string;
    name: string;
    type: string;
    deleted_at: Date | null;
  }>('SELECT id, partner_id, owner, name, type, deleted_at FROM wallets WHERE id = $1', [id]);
  return rows[0];
}
