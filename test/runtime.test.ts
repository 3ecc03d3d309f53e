import net from 'node:net';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { RAMPART_TABLES, type Running, startRampart } from '../src/runtime.ts';
import { startWorkerThread, THREAD_READY, THREAD_STOP } from '../src/worker-thread-host.ts';
import { operatorHeaders, testConfig } from './helpers/app.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { expectEnvelope, parseResponse } from './helpers/http.ts';
import { freePort, tryConnect } from './helpers/process.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function database(migrated = true): Promise<TestDatabase> {
  const created = await freshDatabase({ migrated });
  cleanups.push(() => created.drop());
  return created;
}

async function start(db: TestDatabase, mode: 'serve' | 'worker', env: Record<string, string> = {}) {
  const running = await startRampart(
    testConfig({
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      PORT: '0',
      RAMPART_DB_STATEMENT_TIMEOUT_MS: '60000',
      RAMPART_SHUTDOWN_TIMEOUT_MS: '60000',
      ...env,
    }),
    mode,
  );
  let stopped = false;
  cleanups.push(async () => {
    if (!stopped) await running.stop();
  });
  return {
    running,
    stop: async () => {
      stopped = true;
      await running.stop();
    },
  };
}

function portOf(running: Running): number {
  const address = running.app?.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** Holds a lock that makes the clock advance wait, until released. */
async function lockClockTable(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE runtime_settings IN EXCLUSIVE MODE');
  return {
    release: async () => {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

async function waitForLockWaiter(db: TestDatabase) {
  await vi.waitFor(
    async () => {
      const { rows } = await db.db.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`,
        [db.name],
      );
      expect(rows.length).toBeGreaterThan(0);
    },
    { timeout: 10_000, interval: 20 },
  );
}

function advanceClock(port: number) {
  let settled = false;
  const response = fetch(`http://127.0.0.1:${port}/operator/v1/sandbox/clock`, {
    method: 'POST',
    headers: operatorHeaders(),
    body: '{"advanceSeconds":60}',
  }).finally(() => {
    settled = true;
  });
  return { response, settled: () => settled };
}

describe('startRampart serve', () => {
  it('migrates, serves, and on stop finishes the in-flight request while refusing new connections', async () => {
    const db = await database(false);
    const { running, stop } = await start(db, 'serve');
    const port = portOf(running);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    // A client that started sending a request on its connection before the shutdown.
    const early = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => early.once('connect', () => resolve()));
    const earlyBytes: Buffer[] = [];
    early.on('data', (chunk) => earlyBytes.push(chunk));
    const earlyClosed = new Promise<void>((resolve) => early.once('close', () => resolve()));
    early.write('GET /healthz HTTP/1.1\r\nhost: localhost\r\n');

    const lock = await lockClockTable(db.url);
    const inFlight = advanceClock(port);
    await waitForLockWaiter(db);

    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    // The listener closes first: new connections are refused while the request is still running.
    await vi.waitFor(async () => expect(await tryConnect(port)).toBe('ECONNREFUSED'), {
      timeout: 10_000,
      interval: 20,
    });
    expect(inFlight.settled()).toBe(false);
    expect(stopped).toBe(false);

    // The half-sent request completes during the drain: it gets the envelope, not Fastify's 503 shape.
    early.write('\r\n');
    await earlyClosed;
    const answer = parseResponse(Buffer.concat(earlyBytes));
    expect(answer?.status).toBe(503);
    expect(answer?.headers.connection).toBe('close');
    expectEnvelope(answer?.json, 'ServiceUnavailableException', { transient: true });

    await lock.release();
    const response = await inFlight.response;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ offsetSeconds: 60 });
    await stopping;
    expect(running.ctx.db.ended).toBe(true);

    // The effect of the drained request was committed.
    const { rows } = await db.db.query(
      `SELECT value FROM runtime_settings WHERE name = 'sandbox_clock_offset_ms'`,
    );
    expect(rows).toEqual([{ value: 60_000 }]);
  });

  it('bounds the drain: stop() returns after the shutdown timeout even while a request is stuck', async () => {
    const db = await database();
    const { running, stop } = await start(db, 'serve', { RAMPART_SHUTDOWN_TIMEOUT_MS: '100' });
    const port = portOf(running);
    const lock = await lockClockTable(db.url);
    try {
      const inFlight = advanceClock(port);
      const outcome = inFlight.response.then(
        (response) => response.status,
        () => 'connection closed',
      );
      await waitForLockWaiter(db);
      // Resolves although the request is still waiting for its lock: the bound held.
      await stop();
      expect(await tryConnect(port)).toBe('ECONNREFUSED');
      // The stuck request was cut off rather than answered.
      expect(await outcome).toBe('connection closed');
    } finally {
      await lock.release();
    }
  });
});

/** An Idempotency-Key answer already expired: the hourly purge's first run deletes it. */
async function seedExpiredIdempotencyKey(db: TestDatabase) {
  await db.db.query(
    `INSERT INTO idempotency_keys (scope, key, request_hash, response_status, response_body, expires_at)
     VALUES ('s', 'expired', 'h', 200, '{}', now() - interval '1 second')`,
  );
}

/** Waits until some worker, wherever it runs, has done the first housekeeping purge. */
async function purgeRunBy(db: TestDatabase) {
  await vi.waitFor(
    async () => {
      const { rows } = await db.db.query(
        `SELECT 1 FROM jobs WHERE kind = 'platform.purge' AND state = 'done'`,
      );
      expect(rows.length).toBe(1);
    },
    { timeout: 10_000, interval: 20 },
  );
}

/** Connections of the workers' pool (application_name rampart-worker) open on the database. */
async function workerConnections(db: TestDatabase): Promise<number> {
  const { rows } = await db.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'rampart-worker'`,
    [db.name],
  );
  return rows[0]!.n;
}

describe('startRampart serve, workers on their own thread', () => {
  it('runs the jobs on the thread, and stop() ends it with its connections', async () => {
    const db = await database();
    await seedExpiredIdempotencyKey(db);
    const { running, stop } = await start(db, 'serve', { RAMPART_WORKER_POLL_MS: '10' });
    // Not on the request thread's event loop: no runner there.
    expect(running.jobs).toBeUndefined();
    await purgeRunBy(db);
    expect((await db.db.query('SELECT key FROM idempotency_keys')).rows).toEqual([]);
    expect(await workerConnections(db)).toBeGreaterThan(0);

    await stop();
    await vi.waitFor(async () => expect(await workerConnections(db)).toBe(0), {
      timeout: 5_000,
      interval: 20,
    });
  });

  it('fails the start when the thread cannot start its workers', async () => {
    const db = await database();
    const log = pino({ level: 'silent' });
    const config = testConfig({ RAMPART_DB_STATEMENT_TIMEOUT_MS: '60000' });
    // Nothing listens there: the thread's migrations fail to connect.
    const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/nowhere`;
    const host = startWorkerThread(
      { ...config, databaseUrl: unreachable, masterKey: config.masterKey! },
      log,
    );
    await expect(host.ready).rejects.toThrow(/ECONNREFUSED|connect/);
    await host.stop();
    expect(await workerConnections(db)).toBe(0);
  });
});

/**
 * A stand-in for the workers' thread: says it is ready, then ends by itself after `exitAfterMs`
 * (with code 3), or, without it, runs until told to stop.
 */
function standInThread(exitAfterMs?: number): Worker {
  const code = `
    const { parentPort } = require('node:worker_threads');
    parentPort.postMessage(${JSON.stringify(THREAD_READY)});
    parentPort.on('message', (message) => { if (message === ${JSON.stringify(THREAD_STOP)}) parentPort.close(); });
    ${exitAfterMs === undefined ? '' : `setTimeout(() => process.exit(3), ${exitAfterMs});`}`;
  return new Worker(code, { eval: true });
}

describe('the workers’ thread host', () => {
  const config = testConfig({ RAMPART_SHUTDOWN_TIMEOUT_MS: '5000' });
  const hostConfig = { ...config, databaseUrl: 'postgres://unused', masterKey: config.masterKey! };

  it('starts a thread that ended by itself again, and stop() ends the new one for good', async () => {
    const threads: Worker[] = [];
    const exits: number[] = [];
    const host = startWorkerThread(hostConfig, pino({ level: 'silent' }), () => {
      // The first thread ends on its own once ready; the second runs until stopped.
      const thread = standInThread(threads.length === 0 ? 20 : undefined);
      thread.on('exit', (code) => exits.push(code));
      threads.push(thread);
      return thread;
    });
    await host.ready;
    await vi.waitFor(() => expect(threads).toHaveLength(2), { timeout: 5_000, interval: 20 });
    expect(exits).toEqual([3]);
    await host.stop();
    await vi.waitFor(() => expect(exits).toEqual([3, 0]), { timeout: 5_000, interval: 20 });
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // past the restart delay
    expect(threads).toHaveLength(2);
  });
});

describe('RAMPART_TABLES (what housekeeping maintains)', () => {
  it('names exactly the tables of a freshly migrated database', async () => {
    const db = await database();
    const { rows } = await db.db.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`,
    );
    expect([...RAMPART_TABLES].sort()).toEqual(rows.map((row) => row.name).sort());
  });
});

describe('startRampart worker', () => {
  it('runs the jobs without HTTP and stops cleanly', async () => {
    const db = await database();
    await seedExpiredIdempotencyKey(db);
    const port = await freePort();
    const { running, stop } = await start(db, 'worker', {
      PORT: String(port),
      RAMPART_WORKERS: 'false',
      RAMPART_WORKER_POLL_MS: '10',
    });
    expect(running.app).toBeUndefined();
    expect(running.jobs).toBeDefined();
    expect(await tryConnect(port)).toBe('ECONNREFUSED');

    // The worker picked up the housekeeping job on its own.
    await purgeRunBy(db);
    const keys = await db.db.query('SELECT key FROM idempotency_keys');
    expect(keys.rows).toEqual([]);

    await stop();
    expect(running.ctx.db.ended).toBe(true);
    await expect(running.ctx.db.query('SELECT 1')).rejects.toThrow();
  });

  it('serve without workers starts no job runner', async () => {
    const db = await database();
    const { running, stop } = await start(db, 'serve', { RAMPART_WORKERS: 'false' });
    expect(running.jobs).toBeUndefined();
    expect(running.app).toBeDefined();
    await stop();
  });
});
