import type { Queryable, Tx } from '../platform/db/pool.ts';

/**
 * The SQL of the card-spend address re-key (address-rekey.ts): `card_spend_address_rekeys`, the
 * list a migration fills, and the `card_spend` rows it names. The orders' billing addresses are
 * the wallet-orders domain's, asked for by address-rekey.ts.
 */

/** Taken for the whole re-key: a second process starting meanwhile waits, then finds nothing left. */
const REKEY_LOCK = 'card-spend-address-rekey';

export interface Listed {
  order_id: string;
  old_key: string;
}

export interface SpendMove {
  orderId: string;
  oldKey: string;
  newKey: string;
}

/** One probe of the list: empty on every start but the first after a re-keying migration. */
export async function rekeysListed(q: Queryable): Promise<boolean> {
  const pending = await q.query('SELECT 1 FROM card_spend_address_rekeys LIMIT 1');
  return pending.rowCount !== 0;
}

/** The re-key's lock, and no statement timeout: years of spend outlast a request's timeout. */
export async function beginRekey(tx: Tx): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [REKEY_LOCK]);
  await tx.query('SET LOCAL statement_timeout = 0');
}

/** The next batch of listed rows, taken off the list. */
export async function takeListed(tx: Tx, batch: number): Promise<Listed[]> {
  const { rows } = await tx.query<Listed>(
    `DELETE FROM card_spend_address_rekeys
     WHERE (order_id, old_key) IN (SELECT order_id, old_key FROM card_spend_address_rekeys LIMIT $1)
     RETURNING order_id, old_key`,
    [batch],
  );
  return rows;
}

/** Moves each row to its new key; answers how many moved. */
export async function rekeySpendRows(tx: Tx, moves: readonly SpendMove[]): Promise<number> {
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
export async function recomputeAddressRunningTotals(tx: Tx): Promise<void> {
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
