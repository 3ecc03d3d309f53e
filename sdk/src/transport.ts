import { randomUUID } from 'node:crypto';
import type { Endpoint } from './endpoints.js';
import {
  errorFromResponse,
  type RampartApiError,
  RampartConnectionError,
  RampartTimeoutError,
} from './errors.js';
import { parseExactJson } from './exact-json.js';
import {
  type AttemptOutcome,
  DEFAULT_RETRY,
  isRetryable,
  parseRetryAfterMs,
  type RetryOptions,
  retryDelayMs,
  sleep,
} from './retry.js';
import { nextTimestampMs, signRequest } from './signing.js';

export const SDK_VERSION = '0.1.0';

/** Signature auth (spec §5.2): the secret never leaves the process. */
export interface SignatureAuth {
  type: 'signature';
  apiKey: string;
  secretKey: string;
}

/** Bearer auth (spec §5.3): a secret key or a decentralized session token. */
export interface BearerAuth {
  type: 'bearer';
  token: string;
}

export interface ClientOptions {
  /**
   * The public base URL of Rampart, e.g. `https://api.example.com` or `http://localhost:3000`.
   * Signatures cover the full URL, so it must be the URL the server knows as its public URL.
   */
  baseUrl: string;
  /** Omit for the unauthenticated endpoints only (rates, limits, supported countries, sessions). */
  auth?: SignatureAuth | BearerAuth;
  /** Per attempt, answer body included. Default 30000. */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Another fetch implementation (tests, proxies). Default: the global fetch of Node 20. */
  fetch?: typeof fetch;
}

/** Options every call accepts. */
export interface CallOptions {
  /** Aborts the call, retries and backoff waits included; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout. */
  timeoutMs?: number;
  /**
   * Creating calls get a fresh random key by default; pass your own to make a retry of the same
   * business operation (after a crash, say) answer with the first result. Any call may carry one.
   */
  idempotencyKey?: string;
  /** Overrides the client's retry count for this call. */
  maxRetries?: number;
}

export interface RequestSpec {
  pathParams?: Record<string, string>;
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  /** JSON body (serialized once, then signed and sent as those bytes). */
  json?: unknown;
  /** Binary body with its media type. */
  raw?: { data: Uint8Array; contentType: string };
  /** masqueradeAs used when the client itself does not masquerade. */
  defaultMasquerade?: string;
}

interface PreparedBody {
  bytes: Uint8Array | undefined;
  contentType: string | undefined;
}

/** Builds, signs, sends and retries requests; parses answers and turns errors into classes. */
export class Transport {
  readonly baseUrl: string;
  private readonly retry: RetryOptions;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(
    readonly options: ClientOptions,
    readonly masqueradeAs?: string,
  ) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetchFn = options.fetch ?? fetch;
  }

  withMasquerade(target: string): Transport {
    return new Transport(this.options, target);
  }

  async send<T>(endpoint: Endpoint, spec: RequestSpec, call: CallOptions = {}): Promise<T> {
    const body = prepareBody(spec);
    const headers = this.baseHeaders(endpoint, body, call);
    const idempotent =
      endpoint.repeat === 'safe' || endpoint.method !== 'POST' || headers['idempotency-key'] !== undefined;
    const pathAndQuery = this.pathAndQuery(endpoint, spec);
    const maxRetries = call.maxRetries ?? this.retry.maxRetries;
    for (let retry = 0; ; retry++) {
      const attempt = await this.attempt(endpoint, pathAndQuery, headers, body, call);
      if (attempt.ok) return attempt.value as T;
      const delayMs =
        retry < maxRetries && isRetryable(attempt.outcome, idempotent)
          ? retryDelayMs(attempt.outcome, retry, this.retry)
          : undefined;
      if (delayMs === undefined) throw attempt.error;
      await sleep(delayMs, call.signal);
    }
  }

  private baseHeaders(endpoint: Endpoint, body: PreparedBody, call: CallOptions): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `rampart-sdk-node/${SDK_VERSION}`,
    };
    if (body.contentType) headers['content-type'] = body.contentType;
    const key = call.idempotencyKey ?? (endpoint.repeat === 'keyed' ? randomUUID() : undefined);
    if (key !== undefined) headers['idempotency-key'] = key;
    const auth = this.options.auth;
    if (auth?.type === 'bearer' && endpoint.auth === 'partner')
      headers.authorization = `Bearer ${auth.token}`;
    return headers;
  }

  /** Path and query without `timestamp`, in a fixed order, so every retry has the same fingerprint. */
  private pathAndQuery(endpoint: Endpoint, spec: RequestSpec): string {
    const path = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = spec.pathParams?.[name];
      if (value === undefined || value === '') throw new TypeError(`Missing path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value === undefined) continue;
      query.append(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    const masquerade = this.masqueradeAs ?? spec.defaultMasquerade;
    if (masquerade !== undefined && endpoint.auth === 'partner') query.append('masqueradeAs', masquerade);
    const text = query.toString();
    return text ? `${path}?${text}` : path;
  }

  private async attempt(
    endpoint: Endpoint,
    pathAndQuery: string,
    baseHeaders: Record<string, string>,
    body: PreparedBody,
    call: CallOptions,
  ): Promise<{ ok: true; value: unknown } | { ok: false; error: Error; outcome: AttemptOutcome }> {
    const { url, headers } = this.signed(endpoint, pathAndQuery, baseHeaders, body);
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    const onCallerAbort = () => controller.abort(call.signal?.reason);
    if (call.signal?.aborted) throw call.signal.reason;
    call.signal?.addEventListener('abort', onCallerAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new RampartTimeoutError(timeoutMs));
    }, timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await this.fetchFn(url, {
        method: endpoint.method,
        headers,
        // Uint8Array is a valid fetch body; the cast bridges DOM and Node typings of BodyInit.
        ...(body.bytes !== undefined ? { body: body.bytes as RequestInit['body'] } : {}),
        signal: controller.signal,
      });
      text = await response.text();
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (timedOut)
        return { ok: false, error: new RampartTimeoutError(timeoutMs), outcome: { kind: 'timeout' } };
      const message = `Request to ${endpoint.method} ${endpoint.path} failed: ${(error as Error).message}`;
      return {
        ok: false,
        error: new RampartConnectionError(message, { cause: error }),
        outcome: { kind: 'network' },
      };
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onCallerAbort);
    }
    return interpretResponse(endpoint, response, text);
  }

  /** A fresh timestamp and signature per attempt: the server refuses a signature seen before. */
  private signed(
    endpoint: Endpoint,
    pathAndQuery: string,
    baseHeaders: Record<string, string>,
    body: PreparedBody,
  ) {
    const auth = this.options.auth;
    if (auth?.type !== 'signature' || endpoint.auth !== 'partner') {
      return { url: `${this.baseUrl}${pathAndQuery}`, headers: baseHeaders };
    }
    const separator = pathAndQuery.includes('?') ? '&' : '?';
    const url = `${this.baseUrl}${pathAndQuery}${separator}timestamp=${nextTimestampMs()}`;
    const headers = {
      ...baseHeaders,
      'x-api-key': auth.apiKey,
      'x-api-signature': signRequest(auth.secretKey, url, body.bytes),
    };
    return { url, headers };
  }
}

function prepareBody(spec: RequestSpec): PreparedBody {
  if (spec.raw) return { bytes: spec.raw.data, contentType: spec.raw.contentType };
  if (spec.json === undefined) return { bytes: undefined, contentType: undefined };
  return { bytes: Buffer.from(JSON.stringify(spec.json), 'utf8'), contentType: 'application/json' };
}

function interpretResponse(
  endpoint: Endpoint,
  response: Response,
  text: string,
): { ok: true; value: unknown } | { ok: false; error: RampartApiError; outcome: AttemptOutcome } {
  if (response.ok) {
    return { ok: true, value: text === '' ? undefined : parseExactJson(text, endpoint.amounts ?? 'keys') };
  }
  const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'));
  const retryAfterSeconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
  const error = errorFromResponse(response.status, parseOrUndefined(text), retryAfterSeconds);
  return {
    ok: false,
    error,
    outcome: { kind: 'response', status: response.status, transient: error.transient, retryAfterMs },
  };
}

function parseOrUndefined(text: string): unknown {
  try {
    return parseExactJson(text);
  } catch {
    return undefined;
  }
}
