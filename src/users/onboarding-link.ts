import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a hosted onboarding link works after GET /v3/users/{id}/onboarding handed it out. */
export const ONBOARDING_LINK_TTL_MS = 60 * 60 * 1000;

export interface OnboardingClaims {
  userId: string;
  partnerId: string;
  expiresAtMs: number;
}

// A key of its own, derived from the master key, so a link's MAC can never be confused with any
// other HMAC the service computes under the master key.
function linkKey(masterKey: Buffer): Buffer {
  return createHmac('sha256', masterKey).update('rampart:onboarding-link:v1').digest();
}

function mac(masterKey: Buffer, payload: string): Buffer {
  return createHmac('sha256', linkKey(masterKey)).update(payload).digest();
}

/** `<base64url payload>.<base64url HMAC>`: stateless, so any node can check it. */
export function signOnboardingToken(masterKey: Buffer, claims: OnboardingClaims): string {
  const payload = Buffer.from(`${claims.userId}.${claims.partnerId}.${claims.expiresAtMs}`).toString(
    'base64url',
  );
  return `${payload}.${mac(masterKey, payload).toString('base64url')}`;
}

export type TokenCheck =
  | { ok: true; claims: OnboardingClaims }
  | { ok: false; reason: 'invalid' | 'expired' };

export function verifyOnboardingToken(masterKey: Buffer, token: string, nowMs: number): TokenCheck {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || token.length > 256)
    return { ok: false, reason: 'invalid' };
  const expected = mac(masterKey, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'invalid' };
  const [userId, partnerId, expires] = Buffer.from(payload, 'base64url').toString().split('.');
  const expiresAtMs = Number(expires);
  if (!userId || !partnerId || !Number.isSafeInteger(expiresAtMs)) return { ok: false, reason: 'invalid' };
  if (expiresAtMs <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, claims: { userId, partnerId, expiresAtMs } };
}
