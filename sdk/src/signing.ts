import { createHmac } from 'node:crypto';

/**
 * Wyre request signature (spec §5.2): lowercase hex HMAC-SHA256, keyed with the secret key, over
 * the URL exactly as requested (scheme, host, path and query in the order sent, `timestamp` and
 * `masqueradeAs` included) followed directly by the raw body bytes. The caller must send exactly
 * the bytes it signed, which is why the client serializes a body once and signs that buffer.
 */
export function signRequest(secretKey: string, url: string, body?: Uint8Array | string): string {
  const mac = createHmac('sha256', secretKey).update(url, 'utf8');
  if (body !== undefined && body.length > 0) mac.update(body);
  return mac.digest('hex');
}

let lastTimestampMs = 0;

/**
 * The `timestamp` query value: epoch ms, strictly increasing within this process. The server
 * refuses a signature it has already seen (replay), so two identical requests in the same
 * millisecond must still differ; bumping by a millisecond keeps them well inside the ±5 min window.
 */
export function nextTimestampMs(nowMs: number = Date.now()): number {
  lastTimestampMs = Math.max(nowMs, lastTimestampMs + 1);
  return lastTimestampMs;
}
