import { createHmac, timingSafeEqual } from 'node:crypto';
import { CallbackSignatureError } from './errors.js';
import { parseExactJson } from './exact-json.js';
import type { CallbackPayload } from './types/transfers.js';

export const CALLBACK_SIGNATURE_HEADER = 'X-Rampart-Signature';

export interface VerifyCallbackOptions {
  /** Largest accepted distance between `t` and now, either way. Default 300000 (5 minutes). */
  toleranceMs?: number;
  /** "Now" in epoch ms (tests). */
  nowMs?: number;
}

/**
 * Checks a callback before trusting it and returns its payload. `rawBody` must be the bytes as
 * received (not re-serialized JSON: any byte changed breaks the signature); `header` is the
 * `X-Rampart-Signature` value `t=<ms>,v1=<hex>[,v1=<hex>…]`: HMAC-SHA256 keyed with the signing
 * secret (UTF-8) over `t + "." + body`. Any v1 may match (secret rotation). Compared in constant
 * time; `t` must be within the tolerance, so a captured callback cannot be replayed later.
 * Throws CallbackSignatureError when anything is off.
 */
export function verifyCallback(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: VerifyCallbackOptions = {},
): CallbackPayload {
  const { timestampText, signatures } = parseSignatureHeader(header);
  const toleranceMs = options.toleranceMs ?? 300_000;
  const nowMs = options.nowMs ?? Date.now();
  if (Math.abs(nowMs - Number(timestampText)) > toleranceMs) {
    throw new CallbackSignatureError('Callback timestamp outside the tolerance window');
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const expected = createHmac('sha256', secret).update(`${timestampText}.`, 'utf8').update(body).digest();
  let matched = false;
  for (const candidate of signatures) {
    // No early exit: the time taken does not tell which candidate matched.
    if (timingSafeEqual(expected, candidate)) matched = true;
  }
  if (!matched) throw new CallbackSignatureError('Callback signature does not match');
  return parseExactJson(Buffer.from(body).toString('utf8')) as CallbackPayload;
}

function parseSignatureHeader(header: string | null | undefined): {
  timestampText: string;
  signatures: Buffer[];
} {
  if (!header) throw new CallbackSignatureError(`Missing ${CALLBACK_SIGNATURE_HEADER} header`);
  let timestampText: string | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [name, value = ''] = part.trim().split('=', 2) as [string, string?];
    if (name === 't' && /^\d{1,16}$/.test(value)) timestampText = value;
    if (name === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestampText === undefined) throw new CallbackSignatureError('Signature header has no valid t=');
  if (signatures.length === 0) throw new CallbackSignatureError('Signature header has no valid v1=');
  return { timestampText, signatures };
}

/** The header value for `rawBody` at `timestampMs`: for receivers' own tests. */
export function signCallback(rawBody: string | Uint8Array, secret: string, timestampMs: number): string {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const mac = createHmac('sha256', secret).update(`${timestampMs}.`, 'utf8').update(body).digest('hex');
  return `t=${timestampMs},v1=${mac}`;
}
