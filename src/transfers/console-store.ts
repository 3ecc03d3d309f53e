import type { Queryable } from '../platform/db/pool.ts';
import type { TransferRow } from './store.ts';

/**
 * The operator console's reads of transfers (docs/contract.md, decision 145): by the chain
 * transaction's hash (transfers_network_tx), an account's transfers (transfers_history) and a
 * party's (transfers_by_source, transfers_by_dest), newest first, PREVIEWs left out as the API
 * lists them. A page's cursor is the last transfer's id.
 */

export async function consoleTransfersByTxHash(q: Queryable, hash: string, limit: number) {
  const { rows } = await q.query<TransferRow>(
    `SELECT * FROM transfers WHERE blockchain_tx IS NOT NULL AND blockchain_tx ->> 'networkTxId' = $1
     ORDER BY created_at DESC LIMIT $2`,
    [hash, limit],
  );
  return rows;
}

export async function consoleTransfer(q: Queryable, id: string): Promise<TransferRow | undefined> {
  const { rows } = await q.query<TransferRow>('SELECT * FROM transfers WHERE id = $1', [id]);
  return rows[0];
}

export async function consoleTransfersOfAccount(
  q: Queryable,
  partnerId: string,
  accountId: string,
  after: string | undefined,
  limit: number,
) {
  const { rows } = await q.query<TransferRow>(
    `SELECT * FROM transfers WHERE partner_id = $1 AND account_id = $2 AND listed
       ${after === undefined ? '' : 'AND (created_at, id) < (SELECT created_at, id FROM transfers WHERE id = $4)'}
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    after === undefined ? [partnerId, accountId, limit] : [partnerId, accountId, limit, after],
  );
  return rows;
}

/** Transfers from or to one party (`user:US_…`), newest first. */
export async function consoleTransfersOfParty(q: Queryable, partnerId: string, party: string, limit: number) {
  const { rows } = await q.query<TransferRow>(
    `(SELECT * FROM transfers WHERE partner_id = $1 AND source = $2 AND listed ORDER BY created_at DESC LIMIT $3)
     UNION
     (SELECT * FROM transfers WHERE partner_id = $1 AND dest = $2 AND listed ORDER BY created_at DESC LIMIT $3)
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    [partnerId, party, limit],
  );
  return rows;
}
