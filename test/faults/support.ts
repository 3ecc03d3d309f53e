import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { operatorHeaders, TEST_MASTER_KEY, TEST_OPERATOR_TOKEN, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { freePort, type RampartProcess, spawnRampart } from '../helpers/process.ts';
import { TRANSFER_FIELDS } from '../users/support.ts';

/**
 * Shared pieces of the fault tests: real `rampart serve` processes, callback receivers, a mixed
 * load whose every POST carries an Idempotency-Key (so an unanswered one can be sent again after
 * a crash), and the checks that nothing acknowledged was lost or done twice.
 */

// ---------------------------------------------------------------- cleanup

const cleanups: (() => Promise<unknown>)[] = [];

/** Registers something to undo in afterAll (processes, servers, databases), newest first. */
export function onCleanup(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it answers true or `ms` passes; answers the last result. */
export async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

// ---------------------------------------------------------------- servers

/** A fresh database left unmigrated (the servers under test migrate it), dropped in afterAll. */
export async function serverDatabase(): Promise<TestDatabase> {
  const database = await freshDatabase({ migrated: false });
  onCleanup(() => database.drop());
  return database;
}

export interface Server {
  run: RampartProcess;
  port: number;
  /** What the partner helpers need: the base URL the server signs and listens on. */
  remote: TestApp;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** A lease short enough that a dead process's jobs and callbacks move on within seconds. */
export const SHORT_LEASE_SECONDS = '3';

/** Spawns `rampart serve` on the database and port; resolves once it printed its banner. */
export async function startServer(options: {
  databaseUrl: string;
  port?: number;
  env?: Record<string, string>;
}): Promise<Server> {
  const port = options.port ?? (await freePort());
  const run = spawnRampart(['serve'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseUrl,
    RAMPART_PUBLIC_URL: `http://127.0.0.1:${port}`,
    RAMPART_MASTER_KEY: TEST_MASTER_KEY,
    RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    RAMPART_DATA_DIR: 'data/test-unused',
    RAMPART_WORKER_POLL_MS: '100',
    RAMPART_RATE_LIMIT_PER_IP: '1000000',
    RAMPART_RATE_LIMIT_PER_KEY: '1000000',
    RAMPART_SANDBOX_CHAIN_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    ...options.env,
  });
  onCleanup(async () => run.child.kill('SIGKILL'));
  await run.waitForStdout('is up at');
  const kill = async () => {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    await run.exited;
  };
  const stop = async () => {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGTERM');
    await run.exited;
  };
  return { run, port, remote: { baseUrl: `http://127.0.0.1:${port}` } as TestApp, kill, stop };
}

export function isAlive(server: Server): boolean {
  return server.run.child.exitCode === null && server.run.child.signalCode === null;
}

// ---------------------------------------------------------------- callback receivers

export interface Receiver {
  url: string;
  /** Deliveries received per trigger (`transfer:TF_…`): more than one is a duplicate. */
  counts: Map<string, number>;
  /** Requests received, and those still waiting for an answer (hanging receivers). */
  seen(): number;
  open(): number;
  /** Answers every held request (hanging receivers) and stops holding new ones. */
  release(): void;
}

export type ReceiverBehaviour =
  | 'ok'
  /** Holds every request open until release(). */
  | 'hang'
  | 'error500'
  /** Destroys the socket without answering. */
  | 'reset'
  /** Answers bytes that are not HTTP. */
  | 'garbage'
  /** 302 to `redirectTo`, which a sender must never follow. */
  | 'redirect';

export async function startReceiver(
  behaviour: ReceiverBehaviour = 'ok',
  options: { redirectTo?: string; delayMs?: number } = {},
): Promise<Receiver> {
  const counts = new Map<string, number>();
  const held = new Set<http.ServerResponse>();
  let seen = 0;
  let releasing = false;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      seen += 1;
      try {
        const trigger = (JSON.parse(body) as { trigger?: string }).trigger ?? '';
        counts.set(trigger, (counts.get(trigger) ?? 0) + 1);
      } catch {
        // Not a callback body: left out of the counts, so the check that wanted it fails.
      }
      if (behaviour === 'hang' && !releasing) {
        held.add(response);
        response.on('close', () => held.delete(response));
        return;
      }
      if (behaviour === 'error500') return void response.writeHead(500).end('no');
      if (behaviour === 'reset') return void request.socket.destroy();
      if (behaviour === 'garbage') return void request.socket.end('\u0000\u0001 not http at all\r\n\r\n');
      if (behaviour === 'redirect')
        return void response.writeHead(302, { location: options.redirectTo ?? '/' }).end();
      // A slow but healthy receiver keeps deliveries in flight, so a kill catches some mid-send.
      setTimeout(() => response.writeHead(200).end(), options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = () => {
    releasing = true;
    for (const response of held) response.writeHead(200).end();
  };
  onCleanup(async () => {
    release();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`,
    counts,
    seen: () => seen,
    open: () => held.size,
    release,
  };
}

// ---------------------------------------------------------------- partner set-up

export const START_BALANCE = 1000;
export const ETH_ADDRESS = '0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413';

export interface Tenant {
  partner: PartnerCredentials;
  users: string[];
}

async function ok<T>(response: Response): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as T;
}

function operatorCall(remote: TestApp, method: string, path: string, body: unknown) {
  return fetch(`${remote.baseUrl}${path}`, {
    method,
    headers: operatorHeaders(),
    body: JSON.stringify(body),
  });
}

/** A master account with the Users API, `userCount` users funded with START_BALANCE USD, roomy card limits. */
export async function setUpTenant(remote: TestApp, userCount: number): Promise<Tenant> {
  const partner = await ok<PartnerCredentials>(
    await operatorCall(remote, 'POST', '/operator/v1/accounts', {
      name: 'Fault test',
      country: 'US',
      usersApi: true,
    }),
  );
  await ok(
    await operatorCall(remote, 'PUT', `/operator/v1/accounts/${partner.accountId}/card-limits`, {
      STANDARD: { daily: '1000000', weekly: '1000000', yearly: '1000000' },
    }),
  );
  const users: string[] = [];
  for (let index = 0; index < userCount; index += 1) {
    const user = await ok<{ id: string; scopes: Record<string, { status: string }> }>(
      await signedFetch(remote, partner, {
        method: 'POST',
        path: '/v3/users',
        body: JSON.stringify({ fields: TRANSFER_FIELDS }),
      }),
    );
    expect(user.scopes.TRANSFER?.status).toBe('APPROVED');
    users.push(user.id);
    await ok(
      await operatorCall(remote, 'POST', '/operator/v1/ledger/credits', {
        owner: `user:${user.id}`,
        currency: 'USD',
        amount: String(START_BALANCE),
      }),
    );
  }
  return { partner, users };
}
