import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AccessDeniedException,
  RampartClient,
  RampartConnectionError,
  RampartTimeoutError,
  RateLimitException,
  ServiceUnavailableException,
} from '../../sdk/src/index.js';

/**
 * A scripted local server: each request takes the next step of `script` (the last one repeats)
 * and is recorded, so the tests count exactly what the SDK sent.
 */
type Step = (request: IncomingMessage, response: ServerResponse) => void;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  atMs: number;
}

let server: Server;
let baseUrl: string;
let script: Step[] = [];
let seen: Seen[] = [];

const envelope = (type: string, errorCode: string, transient: boolean) =>
  JSON.stringify({
    language: 'en',
    exceptionId: 'test_ABCDEF',
    compositeType: '',
    subType: '',
    errorCode,
    message: 'scripted',
    type,
    transient,
  });

const answer =
  (status: number, body: string, headers: Record<string, string> = {}): Step =>
  (_, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body);
  };
const unavailable = answer(503, envelope('ServiceUnavailableException', 'rates.stale', true));
const rateLimited = (retryAfter: string) =>
  answer(429, envelope('RateLimitException', 'rateLimit.exceeded', true), { 'retry-after': retryAfter });
const ok = answer(200, '{"walletOrderId":"WO_ABCDEFGHJKL","success":true}');
const dropConnection: Step = (request) => request.socket.destroy();
const neverAnswer: Step = () => {};

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        atMs: Date.now(),
      });
      const step = script[Math.min(seen.length - 1, script.length - 1)];
      step?.(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  script = [];
  seen = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function client(options: { timeoutMs?: number; maxRetries?: number } = {}) {
  return new RampartClient({
    baseUrl,
    auth: { type: 'signature', apiKey: 'AK-TEST', secretKey: 'SK-TEST' },
    timeoutMs: options.timeoutMs ?? 10_000,
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetries: options.maxRetries ?? 2 },
  });
}

const authorizeBody = {
  type: 'SMS',
  walletOrderId: 'WO_ABCDEFGHJKL',
  reservation: 'R',
  sms: '000000',
} as const;

describe('SDK retries against a scripted server', () => {
  it('retries a GET after 503, signing each attempt with a fresh timestamp', async () => {
    script = [
      unavailable,
      answer(
        200,
        '{"walletOrderId":"WO_1","smsNeeded":false,"card2faNeeded":false,"authorization3dsUrl":null}',
      ),
    ];
    const result = await client().cards.authorization('WO_1');
    expect(result.walletOrderId).toBe('WO_1');
    expect(seen).toHaveLength(2);
    const [first, second] = seen as [Seen, Seen];
    expect(first.url).not.toBe(second.url);
    expect(first.headers['x-api-signature']).not.toBe(second.headers['x-api-signature']);
    expect(first.url.replace(/timestamp=\d+/, '')).toBe(second.url.replace(/timestamp=\d+/, ''));
  });

  it('gives up after maxRetries and throws the typed error', async () => {
    script = [unavailable];
    const error = await client({ maxRetries: 2 })
      .cards.authorization('WO_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableException);
    expect(error).toMatchObject({ status: 503, errorCode: 'rates.stale', transient: true });
    expect(seen).toHaveLength(3);
  });

  it('retries a keyed POST after 503 with the same Idempotency-Key and body', async () => {
    script = [
      unavailable,
      unavailable,
      answer(200, '{"url":"http://x/purchase","reservation":"ABCDEFGHJKLMNPQRSTUV"}'),
    ];
    const reserved = await client().orders.reserve({ amount: '10', sourceCurrency: 'USD' });
    expect(reserved.reservation).toBe('ABCDEFGHJKLMNPQRSTUV');
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(seen.map((s) => s.body))).toEqual(new Set(['{"amount":"10","sourceCurrency":"USD"}']));
  });

  it('uses the caller’s Idempotency-Key when given', async () => {
    script = [answer(200, '{"url":"u","reservation":"r"}')];
    await client().orders.reserve({ amount: '10' }, { idempotencyKey: 'order-42' });
    expect(seen[0]?.headers['idempotency-key']).toBe('order-42');
  });

  it('does not retry a POST without Idempotency-Key after 503', async () => {
    script = [unavailable, ok];
    await expect(client().cards.authorize(authorizeBody)).rejects.toBeInstanceOf(ServiceUnavailableException);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('retries that POST when the caller gives it a key', async () => {
    script = [unavailable, ok];
    const result = await client().cards.authorize(authorizeBody, { idempotencyKey: 'codes-1' });
    expect(result.success).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it('retries even an unkeyed POST after 429, waiting at least Retry-After', async () => {
    script = [rateLimited('1'), ok];
    const result = await client().cards.authorize(authorizeBody);
    expect(result.success).toBe(true);
    expect(seen).toHaveLength(2);
    // A lower bound, not a performance figure: the retry must not come before the server allows.
    const [first, second] = seen as [Seen, Seen];
    expect(second.atMs - first.atMs).toBeGreaterThanOrEqual(990);
  });

  it('throws at once when Retry-After is longer than the client accepts', async () => {
    script = [rateLimited('3600'), ok];
    const error = await client()
      .cards.authorize(authorizeBody)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitException);
    expect((error as RateLimitException).retryAfterSeconds).toBe(3600);
    expect(seen).toHaveLength(1);
  });

  it('never retries a 4xx that is not transient', async () => {
    script = [answer(401, envelope('AccessDeniedException', 'accessDenied.invalidSignature', false)), ok];
    await expect(client().cards.authorization('WO_1')).rejects.toBeInstanceOf(AccessDeniedException);
    expect(seen).toHaveLength(1);
  });

  it('retries a GET whose connection dropped, but not an unkeyed POST', async () => {
    script = [dropConnection, answer(200, '{"webhookSecret":"s"}')];
    expect(await client().subscriptions.signingSecret()).toEqual({ webhookSecret: 's' });
    expect(seen).toHaveLength(2);

    seen = [];
    script = [dropConnection, ok];
    await expect(client().cards.authorize(authorizeBody)).rejects.toBeInstanceOf(RampartConnectionError);
    expect(seen).toHaveLength(1);
  });

  it('times out an attempt that gets no answer, retrying idempotent calls', async () => {
    script = [neverAnswer, neverAnswer, ok];
    await expect(client({ timeoutMs: 200 }).cards.authorize(authorizeBody)).rejects.toBeInstanceOf(
      RampartTimeoutError,
    );
    expect(seen).toHaveLength(1);

    seen = [];
    script = [neverAnswer, answer(200, '{"webhookSecret":"s"}')];
    expect(await client({ timeoutMs: 200 }).subscriptions.signingSecret()).toEqual({ webhookSecret: 's' });
    expect(seen).toHaveLength(2);
  });

  it('honours a per-call timeout', async () => {
    script = [neverAnswer];
    const error = await client({ timeoutMs: 60_000 })
      .subscriptions.signingSecret({ timeoutMs: 100, maxRetries: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RampartTimeoutError);
    expect((error as RampartTimeoutError).timeoutMs).toBe(100);
  });

  it('rejects with the caller’s abort reason, in flight or during backoff, without retrying', async () => {
    script = [neverAnswer];
    const inFlight = new AbortController();
    const pending = client().subscriptions.signingSecret({ signal: inFlight.signal });
    await waitFor(() => seen.length === 1);
    inFlight.abort(new Error('user went away'));
    await expect(pending).rejects.toThrow('user went away');
    expect(seen).toHaveLength(1);

    seen = [];
    script = [rateLimited('30'), ok];
    const backoff = new AbortController();
    const waiting = new RampartClient({ baseUrl, retry: { maxRetryAfterMs: 60_000 } }).rates.get(
      {},
      { signal: backoff.signal },
    );
    await waitFor(() => seen.length === 1);
    backoff.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(1);
  });

  it('refuses to start when the signal is already aborted', async () => {
    script = [ok];
    await expect(
      client().cards.authorize(authorizeBody, { signal: AbortSignal.abort(new Error('too late')) }),
    ).rejects.toThrow('too late');
    expect(seen).toHaveLength(0);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error('condition not reached');
}
