import type { Chain } from '../chains/addresses.ts';
import type { ChainsDeps } from '../chains/port.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { userErrors } from './errors.ts';

/**
 * `blockchains` of POST /v3/users (facts §1.3): Wyre's codes, answered as `depositAddresses`
 * keyed by the currency a client deposits there. AVAXC is Wyre's name for the Avalanche C-chain.
 */
const CHAIN_BY_CODE: Record<string, { chain: Chain; currency: string }> = {
  BTC: { chain: 'bitcoin', currency: 'BTC' },
  ETH: { chain: 'ethereum', currency: 'ETH' },
  MATIC: { chain: 'matic', currency: 'MATIC' },
  AVAX: { chain: 'avalanche', currency: 'AVAX' },
  AVAXC: { chain: 'avalanche', currency: 'AVAX' },
};

export function chainsRequested(codes: string[]): { chain: Chain; currency: string }[] {
  const wanted = new Map<string, { chain: Chain; currency: string }>();
  codes.forEach((code, index) => {
    const upper = code.toUpperCase();
    if (upper === 'ALL') {
      for (const entry of Object.values(CHAIN_BY_CODE)) wanted.set(entry.currency, entry);
      return;
    }
    const entry = Object.hasOwn(CHAIN_BY_CODE, upper) ? CHAIN_BY_CODE[upper] : undefined;
    if (!entry) throw userErrors.unsupportedBlockchain(`blockchains[${index}]`, code);
    wanted.set(entry.currency, entry);
  });
  return [...wanted.values()];
}

/**
 * Gives `owner` (an SRN such as `user:US_…`) an address on each requested chain, once per
 * currency. The chain's backend answers the address and the currencies it receives (on an EVM
 * chain the native coin and every configured token share one derived address); a chain without
 * a backend refuses rather than hand out an address nobody holds the key to.
 */
export async function assignDepositAddresses(
  ctx: ChainsDeps,
  q: Queryable,
  partnerId: string,
  owner: string,
  codes: string[],
): Promise<void> {
  const wanted = chainsRequested(codes);
  if (wanted.length === 0) return;
  const backends = wanted.map(({ chain }) => ctx.chains.backends[chain]);
  if (backends.includes(undefined)) throw userErrors.depositAddressesUnavailable();
  for (const [index, { chain, currency }] of wanted.entries()) {
    const { address, currencies } = await backends[index]!.depositAddress(q, chain, owner, currency);
    await q.query(
      `INSERT INTO deposit_addresses (address, chain, currency, partner_id, owner, created_at)
       SELECT $1, $2, c, $4, $5, $6 FROM unnest($3::text[]) AS c ON CONFLICT (owner, currency) DO NOTHING`,
      [address, chain, currencies, partnerId, owner, ctx.clock.now()],
    );
  }
}

/**
 * The Wyre codes of every chain this environment has a backend for: accounts and users get an
 * address on each of them whatever `blockchains` they asked for (docs/contract.md, decision 66).
 */
export function availableChainCodes(ctx: ChainsDeps): string[] {
  return Object.entries(CHAIN_BY_CODE)
    .filter(([code, { chain }]) => code !== 'AVAXC' && ctx.chains.backends[chain] !== undefined)
    .map(([code]) => code);
}

/** The chains asked for plus every chain with a backend: what a new or updated owner is given. */
export function withEveryChain(ctx: ChainsDeps, requested: string[]): string[] {
  return [...requested, ...availableChainCodes(ctx)];
}

/**
 * `current` (an owner's addresses as read) completed with an address on every chain with a
 * backend; only an owner made before it had one (or before its chain got a backend) is written to.
 */
export async function completeDepositAddresses(
  ctx: ChainsDeps,
  q: Queryable,
  partnerId: string,
  owner: string,
  current: Record<string, string>,
): Promise<Record<string, string>> {
  const missing = availableChainCodes(ctx).filter(
    (code) => current[CHAIN_BY_CODE[code]!.currency] === undefined,
  );
  if (missing.length === 0) return current;
  await assignDepositAddresses(ctx, q, partnerId, owner, missing);
  return depositAddressesOf(q, partnerId, owner);
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
