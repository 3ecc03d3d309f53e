import type { Db, Queryable, Tx } from '../platform/db/pool.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { addressSpendKey, type BillingAddress } from './billing-address.ts';
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
 * The billing addresses of the known orders among `orderIds`, read in the caller's transaction:
 * the orders are the wallet-orders domain's (its orderBillingAddresses, wired in runtime.ts).
 */
export type BillingAddressesOf = (
  q: Queryable,
  orderIds: readonly string[],
) => Promise<Map<string, BillingAddress>>;

/**
 * Moves the spend rows listed in card_spend_address_rekeys (migrations/033) to the address keys
 * the current normalisation gives their orders' billing addresses, then recomputes the running
 * totals of the address keys (keys merge: one address written two ways had two), in one
 * transaction: past spend counts under the new keys from the first order this process takes.
 * Run at start, before serving; answers how many rows moved. With nothing listed (every start
 * but the first after such a migration) it costs one probe of an empty table. A row whose order
 * is unknown keeps its key.
 */
export async function rekeyAddressSpend(db: Db, addressesOf: BillingAddressesOf): Promise<number> {
  if (!(await rekeysListed(db))) return 0;
  return withTransaction(db, async (tx) => {
    await beginRekey(tx);
    let moved = 0;
    for (;;) {
      const listed = await takeListed(tx, BATCH);
      if (listed.length === 0) break;
      const addresses = await addressesOf(
        tx,
        listed.map((row) => row.order_id),
      );
      moved += await moveRows(tx, listed, addresses);
    }
    if (moved > 0) await recomputeAddressRunningTotals(tx);
    return moved;
  });
}

/** Re-keys the rows whose key changes; answers how many. */
async function moveRows(
  tx: Tx,
  listed: readonly Listed[],
  addresses: Map<string, BillingAddress>,
): Promise<number> {
  const moves = listed.flatMap((row) => {
    const address = addresses.get(row.order_id);
    if (address === undefined) return [];
    const key = addressSpendKey(address);
    return key === row.old_key ? [] : [{ orderId: row.order_id, oldKey: row.old_key, newKey: key }];
  });
  if (moves.length === 0) return 0;
  return rekeySpendRows(tx, moves);
}
