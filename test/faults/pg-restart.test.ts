import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/platform/db/embedded.ts';
import { createPool } from '../../src/platform/db/pool.ts';
import type { TestApp } from '../helpers/app.ts';
import { signedFetch } from '../helpers/partner.ts';
import { freePort } from '../helpers/process.ts';
import { expectNothingLost } from './invariants.ts';
import { type Op, retryUnanswered, runLoad, transferOp } from './load.ts';
import {
  eventually,
  isAlive,
  onCleanup,
  runCleanups,
  SHORT_LEASE_SECONDS,
  setUpTenant,
  sleep,
  startReceiver,
  startServer,
  type Tenant,
} from './support.ts';

/**
 * PostgreSQL stopped and started under load, on a private server (never the machine's shared
 * one): while it is down /readyz says 503 and every request gets a transient envelope within a
 * bound (no hang, no bare 500); once it is back the same process recovers by itself and nothing
 * acknowledged is lost.
 */
const USERS = 4;
const CONCURRENCY = 6;
/** A request during the outage must be answered within this; anything longer is a hang. */
const ANSWER_BOUND_MS = 15_000;

afterAll(runCleanups);

async function privatePostgres() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-fault-pg-'));
  const port = await freePort();
  const start = () => startEmbeddedPostgres({ dataDir, port });
  let server: EmbeddedServer | undefined = await start();
  onCleanup(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    url: server.connectionString,
    stop: async () => {
      await server?.stop();
      server = undefined;
    },
    start: async () => {
      server = await start();
    },
  };
}

interface Answer {
  status: number;
  body: { type?: string; errorCode?: string; transient?: boolean };
}

async function bounded(request: Promise<Response>): Promise<Answer> {
  const response = await request;
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Answer['body'] };
}

/** What a client sees while the database is down: reads, creates and readiness. */
async function probesWhileDown(remote: TestApp, tenant: Tenant, receiverUrl: string) {
  const signal = () => AbortSignal.timeout(ANSWER_BOUND_MS);
  const ready = await bounded(fetch(`${remote.baseUrl}/readyz`, { signal: signal() }));
  expect(ready).toMatchObject({
    status: 503,
    body: { type: 'ServiceUnavailableException', errorCode: 'service.notReady', transient: true },
  });
  const create = transferOp(tenant, 0, receiverUrl, true);
  const created = await bounded(
    signedFetch(remote, tenant.partner, {
      method: 'POST',
      path: create.path,
      body: create.body,
      headers: { 'idempotency-key': create.key },
    }),
  );
  // Kept with the load's ops: a refused create is sent again with its key once the database is back.
  create.status = created.status;
  create.text = JSON.stringify(created.body);
  const read = await bounded(signedFetch(remote, tenant.partner, { path: '/v3/transfers' }));
  for (const answer of [created, read]) {
    expect(answer).toMatchObject({
      status: 503,
      body: {
        type: 'ServiceUnavailableException',
        errorCode: 'service.databaseUnavailable',
        transient: true,
      },
    });
  }
  return create;
}

describe('PostgreSQL restarted under load', () => {
  it('answers transient 503s while it is down, recovers by itself and loses nothing acknowledged', async () => {
    const postgres = await privatePostgres();
    const server = await startServer({
      databaseUrl: postgres.url,
      env: { RAMPART_JOB_LEASE_SECONDS: SHORT_LEASE_SECONDS },
    });
    const receiver = await startReceiver();
    const tenant = await setUpTenant(server.remote, USERS);
    const ops: Op[] = [];
    let stopped = false;
    const load = runLoad(ops, {
      tenant,
      target: () => server.remote,
      notifyUrl: () => receiver.url,
      concurrency: CONCURRENCY,
      cardOrders: true,
      stop: () => stopped,
    });
    expect(await eventually(() => ops.filter((op) => op.status === 200).length >= 20, 60_000)).toBe(true);

    await postgres.stop();
    await sleep(500);
    if (!isAlive(server)) throw new Error(`the server died with the database: ${server.run.stderr()}`);
    const probe = await probesWhileDown(server.remote, tenant, receiver.url);
    ops.push(probe);
    await sleep(1000); // the load keeps hitting the dead database meanwhile
    await postgres.start();
    const ready = async () => (await fetch(`${server.remote.baseUrl}/readyz`)).status === 200;
    expect(await eventually(ready, 30_000)).toBe(true);
    const answeredBefore = ops.filter((op) => op.status === 200).length;
    // Recovered: new requests succeed on the same process.
    expect(
      await eventually(() => ops.filter((op) => op.status === 200).length > answeredBefore + 10, 30_000),
    ).toBe(true);
    stopped = true;
    await load;
    expect(isAlive(server)).toBe(true);

    // Every failure the load saw was a transient envelope, never a bare 500 or a dropped connection.
    const failures = ops.filter((op) => op.status === undefined || op.status >= 500);
    for (const op of failures) {
      expect(op.status, `${op.kind}: ${op.text ?? op.error}`).toBe(503);
      expect(JSON.parse(op.text ?? '{}')).toMatchObject({ transient: true });
    }
    await retryUnanswered(server.remote, tenant, ops);
    const db = createPool({ connectionString: postgres.url, max: 2, statementTimeoutMs: 10_000 });
    onCleanup(() => db.end());
    await expectNothingLost(db, tenant, ops, receiver);
    console.log(
      `pg-restart: ${ops.filter((op) => op.status === 200).length} acknowledged, ${failures.length} transient refusals retried`,
    );
    await server.stop();
  }, 150_000);
});
