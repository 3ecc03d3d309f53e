import { getRandomValues } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A secret of `length` letters and digits from the operating system's CSPRNG (spec §5.4: never a
 * generator seeded from something predictable). Rejection sampling keeps every character equally
 * likely: bytes ≥ 248 (the largest multiple of 62 below 256) are drawn again instead of folded.
 */
export function randomAlphanumeric(length: number): string {
  const limit = 256 - (256 % ALPHANUMERIC.length);
  let out = '';
  while (out.length < length) {
    for (const byte of getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit && out.length < length) out += ALPHANUMERIC[byte % ALPHANUMERIC.length];
    }
  }
  return out;
}
