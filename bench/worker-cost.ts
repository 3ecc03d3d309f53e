/**
 * The card-order worker's CPU per order, measured alone (no request competing with it):
 *   node --import tsx bench/worker-cost.ts [seconds] [rounds]
 * Places `seconds` (default 10) of card orders at full load with the workers off
 * (RAMPART_WORKERS=false) on a database of its own (`rampart_worker_cost`, or BENCH_DB_NAME), so
 * they wait RUNNING_CHECKS with their processing jobs queued. Then, `rounds` times (default 3): a
 * copy of it, Rampart started on the copy with the workers on, and the CPU of Rampart and of every
 * PostgreSQL process from the spawn until no processing or chain-settlement job is left (every
 * order COMPLETE); and the same on a copy whose worker jobs were deleted first (start-up alone).
 * The difference, divided by the orders, is what capture, delivery, settlement and the
 * housekeeping their rows bring cost each order: the share of a card order's CPU the bench's card-order figure pays for while its
 * requests run (bench/FINDINGS.md, session 15). Under load the worker's batches are smaller (a
 * few hundred orders against thousands here), so this is its least cost per order.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type BenchConfig, databaseUrl, loadBenchConfig } from './config.ts';
import { type CpuSnapshot, cpuSnapshot } from './cpu-usage.ts';
import { dropDatabase, recreateBenchDatabase } from './database.ts';
import { LoadGenerator } from './load.ts';
import { startServer } from './server-process.ts';
import { BENCH_MASTER_KEY, BENCH_OPERATOR_TOKEN, rampartSpec } from './targets.ts';

const SCENARIO = 'card-order';
const WORKER_JOBS = ['walletOrders.process', 'chains.sandboxSettle'];
const DRAIN_LIMIT_MS = 180_000;
const POLL_MS = 250;
/** USER_HZ, as in cpu-usage.ts. */
const TICKS_PER_S = 100;

async function onServer<T>(config: BenchConfig, database: string, fn: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: `${config.pgServerUrl}/${database}` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function copyDatabase(config: BenchConfig, template: string, copy: string): Promise<void> {
  return onServer(config, 'postgres', async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${copy} TEMPLATE ${template}`);
  });
}

/** Rampart on `database`: the workers as `workers` says, one master key for every start. */
async function startRampart(config: BenchConfig, runDir: string, database: string, workers: boolean) {
  const spec = await rampartSpec({
    config,
    runDir,
    databaseUrl: `${config.pgServerUrl}/${database}`,
    logName: `rampart-${database}.log`,
    env: { RAMPART_WORKERS: String(workers), RAMPART_MASTER_KEY: BENCH_MASTER_KEY },
  });
  return startServer(spec);
}

/** Orders placed with the workers off; answers how many. */
async function placeOrders(config: BenchConfig, runDir: string, seconds: number) {
  const server = await startRampart(config, runDir, config.databaseName, false);
  const generator = new LoadGenerator();
  try {
    await generator.prepare(SCENARIO, server.baseUrl, databaseUrl(config), BENCH_OPERATOR_TOKEN);
    const result = await generator.measure(SCENARIO, 1, seconds);
    process.stdout.write(`placed at ${result.requestsPerSec.toFixed(0)} orders/s with the workers off\n`);
  } finally {
    generator.stop();
    await server.stop();
  }
  return onServer(config, config.databaseName, async (client) => {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM wallet_orders WHERE status = 'RUNNING_CHECKS'`,
    );
    return Number(rows[0]?.n ?? 0);
  });
}

function ticksOf(snapshot: CpuSnapshot, matches: (pid: number, name: string) => boolean): number {
  let ticks = 0;
  for (const [pid, [name, used]] of snapshot.processes) if (matches(pid, name)) ticks += used;
  return ticks;
}

/**
 * CPU seconds of Rampart and of PostgreSQL from its start to the last worker job, on a copy of
 * `template`; `withoutOrders`: the copy's worker jobs deleted first (start-up alone).
 */
async function drain(
  config: BenchConfig,
  runDir: string,
  template: string,
  copy: string,
  withoutOrders: boolean,
) {
  await copyDatabase(config, template, copy);
  if (withoutOrders) {
    await onServer(config, copy, (client) =>
      client.query('DELETE FROM jobs WHERE kind = ANY($1)', [WORKER_JOBS]),
    );
  }
  const before = await cpuSnapshot();
  const startedAt = performance.now();
  const server = await startRampart(config, runDir, copy, true);
  let after: CpuSnapshot;
  try {
    await onServer(config, copy, async (client) => {
      for (;;) {
        const { rows } = await client.query<{ left: string }>(
          `SELECT count(*) AS left FROM jobs WHERE kind = ANY($1) AND state IN ('pending', 'running')`,
          [WORKER_JOBS],
        );
        if (Number(rows[0]?.left) === 0) return;
        if (performance.now() - startedAt > DRAIN_LIMIT_MS)
          throw new Error(`${copy}: jobs left after the limit`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    });
    after = await cpuSnapshot();
  } finally {
    await server.stop();
  }
  const postgres = (_pid: number, name: string) => name === 'postgres';
  const rampart = (pid: number) => pid === server.pid;
  return {
    seconds: (performance.now() - startedAt) / 1000,
    rampart: ticksOf(after, rampart) / TICKS_PER_S,
    postgres: (ticksOf(after, postgres) - ticksOf(before, postgres)) / TICKS_PER_S,
  };
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  const rounds = Number(process.argv[3] ?? 3);
  if (!(seconds > 0) || !Number.isInteger(rounds) || rounds < 1) {
    throw new Error('usage: node --import tsx bench/worker-cost.ts [seconds] [rounds]');
  }
  const config = loadBenchConfig({ BENCH_DB_NAME: 'rampart_worker_cost', ...process.env });
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-worker-cost-'));
  const copy = `${config.databaseName}_copy`;
  await recreateBenchDatabase(config);
  try {
    const orders = await placeOrders(config, runDir, seconds);
    const perOrder = (value: number) => `${((value * 1e6) / orders).toFixed(0)} µs`;
    for (let round = 1; round <= rounds; round++) {
      const idle = await drain(config, runDir, config.databaseName, copy, true);
      const busy = await drain(config, runDir, config.databaseName, copy, false);
      const rampart = busy.rampart - idle.rampart;
      const postgres = busy.postgres - idle.postgres;
      process.stdout.write(
        `round ${round}: ${orders} orders completed in ${busy.seconds.toFixed(1)} s; CPU per order: ` +
          `Rampart ${perOrder(rampart)}, PostgreSQL ${perOrder(postgres)}, both ${perOrder(rampart + postgres)} ` +
          `(without orders: Rampart ${idle.rampart.toFixed(2)} s, PostgreSQL ${idle.postgres.toFixed(2)} s ` +
          `over ${idle.seconds.toFixed(1)} s)\n`,
      );
    }
  } finally {
    await dropDatabase(config, copy);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
