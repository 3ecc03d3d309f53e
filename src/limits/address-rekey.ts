import type { Db, Tx } from '../platform/db/pool.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { addressSpendKey } from './billing-address.ts';
import {
  beginRekey,
  type Listed,
  recomputeAddressRunningTotals,
  rekeySpendRows,
  rekeysListed,
  takeListed,
} from './rekey-store.ts';

/** Rows re-keyed per statement: bounded memory and statement size, whatever the table holds. */
const BATCH = 5000;

/**
 * Moves the spend rows listed in card_spend_address_rekeys (migrations/033) to the address keys
 * the current normalisation gives their orders' billing addresses, then recomputes the running
 * totals of the address keys (keys merge: one address written two ways had two), in one
 * transaction: past spend counts under the new keys from the first order this process takes.
 * Run at start, before serving; answers how many rows moved. With nothing listed (every start
 * but the first after such a migration) it costs one probe of an empty table. A row whose order
 * is unknown keeps its key.
 */
export async function rekeyAddressSpend(db: Db): Promise<number> {
  if (!(await rekeysListed(db))) return 0;
  return withTransaction(db, async (tx) => {
    await beginRekey(tx);
    let moved = 0;
    for (;;) {
      const listed = await takeListed(tx, BATCH);
      if (listed.length === 0) break;
      moved += await moveRows(tx, listed);
    }
    if (moved > 0) await recomputeAddressRunningTotals(tx);
    return moved;
  });
}

/** Re-keys the rows whose key changes; answers how many. */
async function moveRows(tx: Tx, listed: readonly Listed[]): Promise<number> {
  const moves = listed.flatMap((row) => {
    if (row.billing_address === null) return [];
    const key = addressSpendKey(row.billing_address);
    return key === row.old_key ? [] : [{ orderId: row.order_id, oldKey: row.old_key, newKey: key }];
  });
  if (moves.length === 0) return 0;
  return rekeySpendRows(tx, moves);
}
