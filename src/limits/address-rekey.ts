import type { Db, Tx } from '../platform/db/pool.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { addressSpendKey, type BillingAddress } from './billing-address.ts';

/** Rows re-keyed per statement: bounded memory and statement size, whatever the table holds. */
const BATCH = 5000;

/** Taken for the whole re-key: a second process starting meanwhile waits, then finds nothing left. */
const REKEY_LOCK = 'card-spend-address-rekey';

interface Listed {
  order_id: string;
  old_key: string;
  billing_address: BillingAddress | null;
}

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
  const pending = await db.query('SELECT 1 FROM card_spend_address_rekeys LIMIT 1');
  if (pending.rowCount === 0) return 0;
  return withTransaction(db, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [REKEY_LOCK]);
    // Years of spend can take longer than a request's statement timeout.
    await tx.query('SET LOCAL statement_timeout = 0');
    let moved = 0;
    for (;;) {
      const listed = await takeListed(tx);
      if (listed.length === 0) break;
      moved += await moveRows(tx, listed);
    }
    if (moved > 0) await recomputeAddressRunningTotals(tx);
    return moved;
  });
}

/** The next batch of listed rows, taken off the list, with their orders' billing addresses. */
async function takeListed(tx: Tx): Promise<Listed[]> {
  const { rows } = await tx.query<Listed>(
    `WITH taken AS (
       DELETE FROM card_spend_address_rekeys
       WHERE (order_id, old_key) IN (SELECT order_id, old_key FROM card_spend_address_rekeys LIMIT $1)
       RETURNING order_id, old_key
     )
     SELECT taken.order_id, taken.old_key, w.billing_address
     FROM taken LEFT JOIN wallet_orders AS w ON w.id = taken.order_id`,
    [BATCH],
  );
  return rows;
}

/** Re-keys the rows whose key changes; answers how many. */
async function moveRows(tx: Tx, listed: readonly Listed[]): Promise<number> {
  const moves = listed.flatMap((row) => {
    if (row.billing_address === null) return [];
    const key = addressSpendKey(row.billing_address);
    return key === row.old_key ? [] : [{ orderId: row.order_id, oldKey: row.old_key, newKey: key }];
  });
  if (moves.length === 0) return 0;
  const { rowCount } = await tx.query(
    `UPDATE card_spend AS c SET spend_key = m.new_key
     FROM unnest($1::text[], $2::text[], $3::text[]) AS m(order_id, old_key, new_key)
     WHERE c.order_id = m.order_id AND c.spend_key = m.old_key`,
    [moves.map((move) => move.orderId), moves.map((move) => move.oldKey), moves.map((move) => move.newKey)],
  );
  return rowCount ?? 0;
}

/**
 * Each address row's running total again the sum of its key's rows up to it, in (at, order_id)
 * order, as migrations/009 first computed them; one pass, the rows already right left alone.
 */
async function recomputeAddressRunningTotals(tx: Tx): Promise<void> {
  await tx.query(
    `UPDATE card_spend AS c SET running_usd = r.running_usd
     FROM (
       SELECT order_id, spend_key,
              sum(amount_usd) OVER (PARTITION BY spend_key ORDER BY at, order_id ROWS UNBOUNDED PRECEDING) AS running_usd
       FROM card_spend WHERE spend_key LIKE 'address:%'
     ) AS r
     WHERE c.order_id = r.order_id AND c.spend_key = r.spend_key AND c.running_usd <> r.running_usd`,
  );
}
