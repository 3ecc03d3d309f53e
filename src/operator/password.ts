/**
 * Operator passwords: scrypt (node:crypto) with a per-password random salt, the parameters
 * stored with the hash (`scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, base64url) so they can grow
 * without a migration, verified in constant time (docs/contract.md, decision 140).
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const LOG2_N = 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Stored parameters are trusted only this far: a tampered row cannot make a sign-in burn minutes. */
const MAX_LOG2_N = 20;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2N;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N, r, p, maxmem: 256 * N * r * p }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, LOG2_N, BLOCK_SIZE, PARALLELISM);
  return [
    'scrypt',
    LOG2_N,
    BLOCK_SIZE,
    PARALLELISM,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [log2N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (!(log2N >= 10 && log2N <= MAX_LOG2_N && r >= 1 && r <= 32 && p >= 1 && p <= 4)) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length !== KEY_BYTES) return false;
  const key = await derive(password, salt, log2N, r, p);
  return timingSafeEqual(key, expected);
}

/**
 * Verifies against a hash of nothing anyone knows: a sign-in for an e-mail without an operator
 * takes as long as one with, so the answer's timing does not tell which e-mails exist.
 */
let decoy: Promise<string> | undefined;
export async function spendVerifyTime(password: string): Promise<void> {
  decoy ??= hashPassword(randomBytes(24).toString('base64url'));
  await verifyPassword(password, await decoy);
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  return undefined;
}
