import http from 'node:http';
import https from 'node:https';
import { hmacSha256Hex } from '../platform/crypto.ts';
import { type AddressRules, addressAllowed } from './address-policy.ts';
import { MAX_ERROR_LENGTH } from './limits.ts';
import type { DeliveryOutcome } from './outcome.ts';
import { ipLiteral, pinnedLookup } from './url-policy.ts';

export const SIGNATURE_HEADER = 'X-Rampart-Signature';
const USER_AGENT = 'Rampart-Callbacks/1';

/** `t=<ms>,v1=<hex HMAC-SHA256(secret, t + "." + body)>` (docs/contract.md, Subscriptions and callbacks; Stripe's scheme). */
export function signatureHeader(secret: string, timestampMs: number, body: string): string {
  return `t=${timestampMs},v1=${hmacSha256Hex(secret, `${timestampMs}.${body}`)}`;
}

export interface SendResult {
  /** 200 only (docs/contract.md, Subscriptions and callbacks); redirects are not followed. */
  accepted: boolean;
  /** The coarse outcome partners see; `error` is the detail for the operator and logs. */
  outcome: DeliveryOutcome;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

export interface SendOptions {
  url: string;
  body: string;
  signature: string;
  timeoutMs: number;
  rules: AddressRules & { schemes: string[] };
}

/** The attempt's deadline passed (DNS, connect, TLS or waiting for the response head). */
class DeliveryTimeout extends Error {}

/**
 * One POST of a callback. Never throws: every way it can go wrong (refused address, DNS,
 * connection reset, timeout, a status other than 200) becomes a SendResult with the reason.
 */
export async function sendCallback(options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const finish = (statusCode: number | null, error: string | null, timedOut = false): SendResult => {
    const outcome = outcomeOf(statusCode, timedOut);
    return {
      accepted: outcome === 'delivered',
      outcome,
      statusCode,
      error: error === null ? null : error.slice(0, MAX_ERROR_LENGTH),
      latencyMs: Math.max(0, Math.round(performance.now() - started)),
    };
  };
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return finish(null, 'invalid URL');
  }
  if (!options.rules.schemes.includes(url.protocol))
    return finish(null, `scheme ${url.protocol} not allowed`);
  const literal = ipLiteral(url);
  if (literal !== undefined && !addressAllowed(literal, options.rules))
    return finish(null, 'forbidden address');
  try {
    const statusCode = await post(url, options);
    return finish(statusCode, statusCode === 200 ? null : describeStatus(statusCode));
  } catch (error) {
    return finish(null, (error as Error).message || 'request failed', error instanceof DeliveryTimeout);
  }
}

function outcomeOf(statusCode: number | null, timedOut: boolean): DeliveryOutcome {
  if (statusCode === 200) return 'delivered';
  if (statusCode !== null) return 'refusedByReceiver';
  return timedOut ? 'timedOut' : 'unreachable';
}

function describeStatus(statusCode: number): string {
  if (statusCode >= 300 && statusCode < 400) return `HTTP ${statusCode} (redirects are not followed)`;
  return `HTTP ${statusCode}`;
}

/** Resolves with the status code once the response head arrives; the body is discarded. */
function post(url: URL, options: SendOptions): Promise<number> {
  const client = url.protocol === 'https:' ? https : http;
  const bytes = Buffer.from(options.body);
  return new Promise<number>((resolve, reject) => {
    const request = client.request(url, {
      method: 'POST',
      // A fresh connection each time: no pooled socket to an address resolved earlier.
      agent: false,
      lookup: pinnedLookup(options.rules) as never,
      headers: {
        'content-type': 'application/json',
        'content-length': String(bytes.length),
        'user-agent': USER_AGENT,
        [SIGNATURE_HEADER.toLowerCase()]: options.signature,
      },
    });
    // One deadline for the whole exchange (DNS, connect, TLS, response head), not an idle timer.
    const deadline = setTimeout(() => {
      request.destroy(new DeliveryTimeout(`timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('response', (response) => {
      clearTimeout(deadline);
      const statusCode = response.statusCode ?? 0;
      response.resume();
      response.on('error', () => undefined);
      // Enough is known; a receiver streaming an endless body must not hold the slot.
      request.destroy();
      resolve(statusCode);
    });
    request.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.end(bytes);
  });
}
