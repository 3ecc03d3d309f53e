import type { Queryable } from '../platform/db/pool.ts';
import type { Chain } from './addresses.ts';
import { depositAddressesOf, insertDepositAddresses } from './deposit-addresses-store.ts';
import { chainErrors } from './errors.ts';
import type { ChainsDeps } from './port.ts';

export {
  depositAddressesOf,
  depositAddressesOfOwners,
  findDepositAddressOwner,
} from './deposit-addresses-store.ts';

/**
 * `blockchains` of POST /v3/users (docs/contract.md, Users and KYC): Wyre's codes, answered as `depositAddresses`
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
    if (!entry) throw chainErrors.unsupportedBlockchain(`blockchains[${index}]`, code);
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
  if (backends.includes(undefined)) throw chainErrors.depositAddressesUnavailable();
  for (const [index, { chain, currency }] of wanted.entries()) {
    const { address, currencies } = await backends[index]!.depositAddress(q, chain, owner, currency);
    await insertDepositAddresses(q, { address, chain, currencies, partnerId, owner }, ctx.clock.now());
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
