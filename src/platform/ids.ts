import { randomBytes, randomInt } from 'node:crypto';

/** The id alphabet of docs/contract.md (Conventions): digits 2-9 and upper-case letters without I and O, so ids read back unambiguously. */
export const ID_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

export type IdPrefix = 'AC' | 'US' | 'TF' | 'WO' | 'DA' | 'PA' | 'PT' | 'DO' | 'CB' | 'JB' | 'WA' | 'OP';

// Random bytes are drawn from a pooled 4 KiB buffer: one CSPRNG call per ~680 ids instead of
// one per id (a fresh call is a large part of a small answer's CPU, an error's for one).
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function takeRandomBytes(count: number): Buffer {
  if (poolOffset + count > pool.length) {
    pool = randomBytes(Math.max(POOL_BYTES, count));
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

/**
 * Uniform, crypto-random characters. For a 32-symbol alphabet (ours) each byte's low five bits
 * pick a symbol without bias; other alphabets use randomInt, which avoids the modulo bias of
 * `byte % n`. Pooled bytes are used once and never handed out twice.
 */
export function randomChars(length: number, alphabet = ID_ALPHABET): string {
  let out = '';
  if (alphabet.length === 32) {
    for (const byte of takeRandomBytes(length)) out += alphabet[byte & 31];
    return out;
  }
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** `bytes` crypto-random bytes as hex, from the same pool (simulated transaction hashes, say). */
export function randomHex(bytes: number): string {
  return takeRandomBytes(bytes).toString('hex');
}

/** `AC_YQG97JUANCF`: prefix, underscore, 11 characters (55 bits of randomness). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomChars(11)}`;
}

export function newReservationId(): string {
  return randomChars(20);
}

/** `AK-XXXXXXXX-XXXXXXXX-XXXXXXXX-XXXXXXXX` and the same shape for `SK-` secrets (160 bits). */
export function newKey(prefix: 'AK' | 'SK'): string {
  return [prefix, randomChars(8), randomChars(8), randomChars(8), randomChars(8)].join('-');
}

/**
 * Six characters, as Wyre's support references, after `prefix`: the sandbox's carry `test_`
 * (AppContext.exceptionIdPrefix) so they are never confused with production's.
 */
export function newExceptionId(prefix: string): string {
  return `${prefix}${randomChars(6)}`;
}

const ID_PATTERN = new RegExp(`^[A-Z]{2}_[${ID_ALPHABET}]{11}$`);

export function isId(value: string, prefix: IdPrefix): boolean {
  return value.startsWith(`${prefix}_`) && ID_PATTERN.test(value);
}
