import type { Queryable } from '../platform/db/pool.ts';
import type { Chain } from './addresses.ts';

/** The SQL of `deposit_addresses`: which owner holds which address, one per owner and currency. */

export interface NewDepositAddress {
  address: string;
  chain: Chain;
  /** Every currency the address receives (an EVM address takes the native coin and each token). */
  currencies: string[];
  partnerId: string;
  owner: string;
}

/** The address for each of its currencies the owner has none for yet; existing ones are kept. */
export async function insertDepositAddresses(q: Queryable, row: NewDepositAddress, now: Date): Promise<void> {
  await q.query(
    `INSERT INTO deposit_addresses (address, chain, currency, partner_id, owner, created_at)
       SELECT $1, $2, c, $4, $5, $6 FROM unnest($3::text[]) AS c ON CONFLICT (owner, currency) DO NOTHING`,
    [row.address, row.chain, row.currencies, row.partnerId, row.owner, now],
  );
}

export async function depositAddressesOf(q: Queryable, partnerId: string, owner: string) {
  const { rows } = await q.query<{ currency: string; address: string }>(
    'SELECT currency, address FROM deposit_addresses WHERE partner_id = $1 AND owner = $2 ORDER BY currency',
    [partnerId, owner],
  );
  return Object.fromEntries(rows.map((row) => [row.currency, row.address]));
}

/** depositAddressesOf for many owners of one partner in one query (a page of wallets), by owner. */
export async function depositAddressesOfOwners(q: Queryable, partnerId: string, owners: readonly string[]) {
  const byOwner = new Map<string, Record<string, string>>(owners.map((owner) => [owner, {}]));
  if (owners.length === 0) return byOwner;
  const { rows } = await q.query<{ owner: string; currency: string; address: string }>(
    `SELECT owner, currency, address FROM deposit_addresses
     WHERE partner_id = $1 AND owner = ANY($2::text[]) ORDER BY owner, currency`,
    [partnerId, owners],
  );
  for (const row of rows) byOwner.get(row.owner)![row.currency] = row.address;
  return byOwner;
}

/** Who a deposit to `address` on `chain` belongs to (for the deposit flow); undefined if nobody. */
export async function findDepositAddressOwner(q: Queryable, chain: Chain, address: string) {
  const { rows } = await q.query<{ owner: string; partner_id: string; currency: string }>(
    'SELECT owner, partner_id, currency FROM deposit_addresses WHERE chain = $1 AND address = $2',
    [chain, address],
  );
  return rows[0]
    ? { owner: rows[0].owner, partnerId: rows[0].partner_id, currency: rows[0].currency }
    : undefined;
}
