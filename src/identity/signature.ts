import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Wyre request signatures (docs/contract.md, Authentication): hex HMAC-SHA256 over the URL exactly as the client sent
 * it followed by the raw body bytes. Behind a proxy we cannot know which public base URL the
 * client used, so each configured one is tried, and the path+query alone as well.
 */
export function signatureCandidates(publicUrls: string[], pathAndQuery: string): string[] {
  return [...publicUrls.map((base) => `${base}${pathAndQuery}`), pathAndQuery];
}

export function computeSignature(secret: Buffer | string, url: string, body: Buffer | undefined): Buffer {
  const mac = createHmac('sha256', secret).update(url, 'utf8');
  if (body && body.length > 0) mac.update(body);
  return mac.digest();
}

const HEX_SIGNATURE = /^[0-9a-fA-F]{64}$/;

export function isWellFormedSignature(value: string): boolean {
  return HEX_SIGNATURE.test(value);
}

/**
 * Constant-time check of the given hex signature against each candidate URL in turn. It stops at
 * the first match: that only tells the caller which of its own URLs it signed, which it knows;
 * a signature that matches none takes the same time, all candidates computed, whatever it holds.
 */
export function signatureMatches(
  secret: Buffer,
  given: string,
  candidates: string[],
  body: Buffer | undefined,
): boolean {
  const givenBytes = Buffer.from(given, 'hex');
  return candidates.some((url) => timingSafeEqual(computeSignature(secret, url, body), givenBytes));
}

/**
 * The `timestamp` query value in epoch ms. Some Wyre clients send `Date.now() + "000"`
 * (16 digits, microseconds); docs/contract.md, decision 7 reads those as microseconds.
 */
export function timestampMs(raw: string): number | undefined {
  if (!/^\d{1,16}$/.test(raw)) return undefined;
  const value = Number(raw);
  return raw.length === 16 ? Math.floor(value / 1000) : value;
}

/** The timestamp query parameter exactly as it appears in the URL (first occurrence only counts). */
export function timestampParam(query: unknown): string | undefined | 'duplicate' {
  const value = (query as Record<string, unknown> | undefined)?.timestamp;
  if (Array.isArray(value)) return 'duplicate';
  return typeof value === 'string' ? value : undefined;
}
