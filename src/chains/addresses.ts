import { createHmac } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { invalidValue } from '../platform/errors.ts';

/**
 * The chains Rampart delivers to, and what a valid address on each looks like, checksums
 * included. Sandbox runs on test networks (as Wyre's testwyre did), production on main networks.
 */
export type Chain = 'bitcoin' | 'ethereum' | 'matic' | 'avalanche' | 'base' | 'arbitrum';
export type Network = 'mainnet' | 'testnet';

export const CHAINS: readonly Chain[] = ['bitcoin', 'ethereum', 'matic', 'avalanche', 'base', 'arbitrum'];

/** EVM chains share one address format (20 bytes, EIP-55 mixed-case checksum). */
const EVM_CHAINS = new Set<Chain>(['ethereum', 'matic', 'avalanche', 'base', 'arbitrum']);

export function isEvmChain(chain: Chain): boolean {
  return EVM_CHAINS.has(chain);
}

const CHAINS_BY_CURRENCY: Record<string, Chain[]> = {
  BTC: ['bitcoin'],
  ETH: ['ethereum'],
  USDC: ['ethereum', 'matic'],
  DAI: ['ethereum'],
  MATIC: ['matic'],
  AVAX: ['avalanche'],
};

export function networkFor(env: 'sandbox' | 'production'): Network {
  return env === 'sandbox' ? 'testnet' : 'mainnet';
}

export function chainsForCurrency(currency: string): Chain[] {
  return Object.hasOwn(CHAINS_BY_CURRENCY, currency) ? CHAINS_BY_CURRENCY[currency]! : [];
}

export function isChain(value: string): value is Chain {
  return (CHAINS as readonly string[]).includes(value);
}

const UTF8 = new TextEncoder();
/** Checksummed forms already computed: wallets come back, and keccak-256 is the costly part. */
const checksummed = new Map<string, string>();
const MAX_CHECKSUMMED = 10_000;

/** EIP-55: a hex letter is upper case where the keccak-256 of the lower-case address has a nibble ≥ 8. */
export function toChecksumAddress(hex40: string): string {
  const lower = hex40.toLowerCase();
  const known = checksummed.get(lower);
  if (known !== undefined) return known;
  const hash = keccak_256(UTF8.encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i];
  }
  if (checksummed.size >= MAX_CHECKSUMMED) checksummed.clear();
  checksummed.set(lower, out);
  return out;
}

/** All-lower or all-upper hex carries no checksum and is accepted; mixed case must match EIP-55. */
function isEvmAddress(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(body) === address;
}

const base58check = createBase58check(sha256);

/** Version bytes of base58check addresses: P2PKH and P2SH. */
const BASE58_VERSIONS: Record<Network, number[]> = { mainnet: [0x00, 0x05], testnet: [0x6f, 0xc4] };
const SEGWIT_HRP: Record<Network, string> = { mainnet: 'bc', testnet: 'tb' };

function isBase58Address(address: string, network: Network): boolean {
  try {
    const payload = base58check.decode(address);
    return payload.length === 21 && BASE58_VERSIONS[network].includes(payload[0]!);
  } catch {
    return false;
  }
}

/** BIP-173/350: witness v0 in bech32 with a 20- or 32-byte program, v1+ in bech32m. */
function isSegwitAddress(address: string, network: Network): boolean {
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) return false;
  if (!lower.startsWith(`${SEGWIT_HRP[network]}1`)) return false;
  for (const codec of [bech32, bech32m]) {
    try {
      const { prefix, words } = codec.decode(lower as `${string}1${string}`, 90);
      const version = words[0];
      if (prefix !== SEGWIT_HRP[network] || version === undefined || version > 16) continue;
      if ((version === 0) !== (codec === bech32)) continue;
      const program = codec.fromWords(words.slice(1));
      if (program.length < 2 || program.length > 40) continue;
      if (version === 0 && program.length !== 20 && program.length !== 32) continue;
      return true;
    } catch {}
  }
  return false;
}

export function isValidAddress(chain: Chain, address: string, network: Network): boolean {
  if (EVM_CHAINS.has(chain)) return isEvmAddress(address);
  return isBase58Address(address, network) || isSegwitAddress(address, network);
}

/**
 * Reads `<chain>:<address>` (`dest`, docs/contract.md, Reservations and quotes). Throws a ValidationException naming `field` for a
 * missing prefix, an unknown chain, a bad checksum or an address of the other network.
 */
export function parseChainSrn(
  value: string,
  field: string,
  network: Network,
): { chain: Chain; address: string } {
  const colon = value.indexOf(':');
  const chain = colon > 0 ? value.slice(0, colon).toLowerCase() : '';
  const address = value.slice(colon + 1);
  if (!isChain(chain)) {
    throw invalidValue(
      field,
      `Field ${field} must be <chain>:<address> with chain one of ${CHAINS.join(', ')}.`,
    );
  }
  if (address.length === 0 || address.length > 100 || !isValidAddress(chain, address, network)) {
    throw invalidValue(
      field,
      `Field ${field} is not a valid ${chain} ${network} address.`,
      'validation.invalidAddress',
    );
  }
  return { chain, address };
}

/**
 * A deterministic, valid-format address for sandbox deposits (there is no real wallet behind
 * it): 20 bytes from an HMAC of the seed, as an EIP-55 address or a testnet P2WPKH bech32.
 */
export function sandboxDepositAddress(chain: Chain, seed: string): string {
  const bytes = createHmac('sha256', 'rampart-sandbox-deposit')
    .update(`${chain}:${seed}`)
    .digest()
    .subarray(0, 20);
  if (EVM_CHAINS.has(chain)) return toChecksumAddress(bytes.toString('hex'));
  return bech32.encode(SEGWIT_HRP.testnet, [0, ...bech32.toWords(bytes)]);
}
