import type { Queryable } from '../../platform/db/pool.ts';
import { findDepositKey, insertDepositKey, nextDerivationIndex } from './deposit-store.ts';

/** What deposit addresses are derived from (custody-keys.ts `custodyKeys`). */
export interface DepositKeySource {
  depositAccount(index: number): { address: string };
}

/**
 * The owner whose balance the operator funds card-order deliveries from: deposits to its address
 * credit the house inventory of that chain's currencies (contract decision 84).
 */
export const HOUSE_INVENTORY = 'house:inventory';

/**
 * The deposit address of `owner` (any SRN: `user:`, `account:`, `wallet:`, the house) on
 * `chain`: the key m/44'/60'/0'/0/<index> of the custody seed, with the index taken once and
 * recorded, so the same owner always gets the same address and no two owners share one.
 */
export async function evmDepositAddress(
  q: Queryable,
  keys: DepositKeySource,
  chain: string,
  owner: string,
): Promise<string> {
  const known = await findDepositKey(q, chain, owner);
  if (known) return known.address;
  const index = await nextDerivationIndex(q);
  const address = keys.depositAccount(index).address;
  if (await insertDepositKey(q, { chain, owner, index, address })) return address;
  // Another transaction gave this owner its key first; its index is the one kept.
  return (await findDepositKey(q, chain, owner))!.address;
}
