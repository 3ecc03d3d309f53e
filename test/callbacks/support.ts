import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { notifyTransferCreated } from '../../src/callbacks/service.ts';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../../src/callbacks/worker.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { newId } from '../../src/platform/ids.ts';
import type { TestApp } from '../helpers/app.ts';

export type Behaviour = 'accept' | 'fail500' | 'redirect' | 'hang' | 'destroy';

export interface ReceivedCallback {
  body: string;
  headers: http.IncomingHttpHeaders;
  /** The request's socket, still open for a hanging receiver. */
  closed: () => boolean;
}

export interface Receiver {
  url: string;
  received: ReceivedCallback[];
  /** Resolves with the nth request (1-based) once it has arrived. */
  nth(n: number): Promise<ReceivedCallback>;
  /** Answers every request a hanging receiver holds (200), so it can close. */
  release(): void;
  close(): Promise<void>;
}

/** A callback receiver on a loopback port behaving as told (node:http, nothing mocked). */
export async function startReceiver(
  behaviour: Behaviour,
  redirectTo = 'http://127.0.0.1:9/',
): Promise<Receiver> {
  const received: ReceivedCallback[] = [];
  const waiters: { n: number; resolve: (r: ReceivedCallback) => void }[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let closed = false;
      request.socket.on('close', () => {
        closed = true;
      });
      const entry = {
        body: Buffer.concat(chunks).toString(),
        headers: request.headers,
        closed: () => closed,
      };
      received.push(entry);
      for (const waiter of waiters.filter((w) => w.n === received.length)) waiter.resolve(entry);
      if (behaviour === 'accept') response.writeHead(200).end('ok');
      else if (behaviour === 'fail500') response.writeHead(500).end('boom');
      else if (behaviour === 'redirect') response.writeHead(302, { location: redirectTo }).end();
      else if (behaviour === 'destroy') request.socket.destroy();
      else held.push(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    nth: (n) =>
      received[n - 1]
        ? Promise.resolve(received[n - 1]!)
        : new Promise((resolve) => waiters.push({ n, resolve })),
    release: () => {
      for (const response of held.splice(0)) response.writeHead(200).end();
    },
    close: async () => {
      for (const response of held.splice(0)) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a receiver does with X-Rampart-Signature: recompute the HMAC over `t.body` and compare. */
export function verifySignature(secret: string, header: string | undefined, body: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

export function testWorker(t: TestApp, options: Partial<DeliveryWorkerOptions> = {}): DeliveryWorker {
  return new DeliveryWorker(t.ctx, pino({ level: 'silent' }), { pollMs: 20, retryBaseMs: 20, ...options });
}

/** A transfer's callbacks as the transfers module queues them: in a transaction of its own. */
export async function queueTransferCallbacks(
  t: TestApp,
  accountId: string,
  options: { notifyUrl?: string; owner?: string; transferId?: string } = {},
): Promise<string> {
  const transferId = options.transferId ?? newId('TF');
  await withTransaction(t.ctx.db, (tx) =>
    notifyTransferCreated(t.ctx, tx, {
      accountId,
      transferId,
      owner: options.owner ?? `account:${accountId}`,
      ...(options.notifyUrl !== undefined ? { notifyUrl: options.notifyUrl } : {}),
    }),
  );
  return transferId;
}

export interface DeliveryState {
  id: string;
  subscription_id: string | null;
  status: string;
  attempts: number;
  last_error: string | null;
  body: string;
}

export async function deliveriesOf(t: TestApp, trigger: string): Promise<DeliveryState[]> {
  const { rows } = await t.ctx.db.query<DeliveryState>(
    'SELECT id, subscription_id, status, attempts, last_error, body FROM callback_deliveries WHERE trigger = $1 ORDER BY created_at, id',
    [trigger],
  );
  return rows;
}

/** Waits (polling the database, bounded) until every delivery of the trigger has left PENDING. */
export async function settled(t: TestApp, trigger: string, deadlineMs = 15_000): Promise<DeliveryState[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const rows = await deliveriesOf(t, trigger);
    if (rows.length > 0 && rows.every((row) => row.status !== 'PENDING')) return rows;
    if (Date.now() > until)
      throw new Error(`deliveries of ${trigger} still pending: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function attemptRows(t: TestApp, deliveryId: string) {
  const { rows } = await t.ctx.db.query<{
    status_code: number | null;
    latency_ms: number;
    error: string | null;
  }>('SELECT status_code, latency_ms, error FROM callback_attempts WHERE delivery_id = $1 ORDER BY id', [
    deliveryId,
  ]);
  return rows;
}

/** Polls (bounded) until the condition holds. */
export async function waitFor(condition: () => Promise<boolean>, deadlineMs = 15_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
