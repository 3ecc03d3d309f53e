/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA-1, 30-second steps,
 * 6 digits, the step before and after accepted for clock drift; a step once used is never
 * accepted again (operators-store.ts useTotpStep). Seeds are 20 random bytes, shown to the
 * operator once in base32 and kept sealed (decision 141).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { base32nopad } from '@scure/base';
import { secretsEqual } from '../platform/crypto.ts';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
const DRIFT_STEPS = 1;
const ISSUER = 'Rampart';

export function newTotpSeed(): Buffer {
  return randomBytes(20);
}

export function seedToBase32(seed: Buffer): string {
  return base32nopad.encode(seed);
}

export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_STEP_SECONDS);
}

/** The code of one step (HOTP with the step as counter); `digits` and `hash` for the RFC's vectors. */
export function totpCode(seed: Buffer, step: number, digits = TOTP_DIGITS, hash = 'sha1'): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac(hash, seed).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/**
 * The step whose code `code` is, among now's and its neighbours, later than `lastUsedStep`;
 * undefined when none matches. Every candidate is compared, in constant time, so the timing
 * does not say which step matched.
 */
export function matchTotp(
  seed: Buffer,
  code: string,
  nowMs: number,
  lastUsedStep: number,
): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = totpStep(nowMs);
  let matched: number | undefined;
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step += 1) {
    const equal = secretsEqual(totpCode(seed, step), code);
    if (equal && step > lastUsedStep && matched === undefined) matched = step;
  }
  return matched;
}

/** What an authenticator app scans or is given: `otpauth://totp/Rampart:<e-mail>?secret=…`. */
export function otpauthUri(seed: Buffer, email: string): string {
  const label = encodeURIComponent(`${ISSUER}:${email}`);
  const query = new URLSearchParams({
    secret: seedToBase32(seed),
    issuer: ISSUER,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${query}`;
}
