/**
 * The card-order worker's CPU per order, measured alone (no request competing with it):
 *   node --import tsx bench/profiling/worker-cost.ts [seconds] [rounds]
 * Places `seconds` (default 10) of card orders at full load with the workers off
 * (RAMPART_WORKERS=false) on a database of its own (`rampart_worker_cost`, or BENCH_DB_NAME), so
 * they wait RUNNING_CHECKS with their processing jobs queued. Then, `rounds` times (default 3): a
 * copy of it, Rampart started on the copy with the workers on, and the CPU of Rampart and of every
 * PostgreSQL process from the spawn until no job is due (waitForDueJobs, as the bench's drain:
 * every order COMPLETE); and the same on a copy whose queued jobs were deleted first (start-up
 * alone). The difference, divided by the orders, is what capture, delivery, settlement and the
 * housekeeping their rows bring cost each order: the share of a card order's CPU the bench's
 * card-order figure pays for while its requests run. Under load the worker's batches are smaller (a
 * few hundred orders against thousands here), so this is its least cost per order.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type BenchConfig, databaseUrl, loadBenchConfig } from '../harness/config.ts';
import {
  dropDatabase,
  recreateBenchDatabase,
  recreateDatabase,
  waitForDueJobs,
  withClient,
} from '../harness/database.ts';
import { LoadGenerator } from '../harness/load.ts';
import { startServer } from '../harness/server-process.ts';
import { BENCH_MASTER_KEY, BENCH_OPERATOR_TOKEN, rampartSpec } from '../harness/targets.ts';
import { type CpuSnapshot, cpuSnapshot } from './cpu-usage.ts';

const SCENARIO = 'card-order';
const DRAIN_LIMIT_MS = 180_000;
/** USER_HZ, as in cpu-usage.ts. */
const TICKS_PER_S = 100;

const urlOf = (config: BenchConfig, database: string) => `${config.pgServerUrl}/${database}`;

/** Rampart on `database`: the workers as `workers` says, one master key for every start. */
async function startRampart(config: BenchConfig, runDir: string, database: string, workers: boolean) {
  const spec = await rampartSpec({
    config,
    runDir,
    databaseUrl: urlOf(config, database),
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
  return withClient(databaseUrl(config), async (client) => {
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
 * CPU seconds of Rampart and of PostgreSQL from its start until no job is due, on a copy of
 * `template`; `withoutOrders`: the copy's queued jobs (the orders' processing) deleted first.
 */
async function drain(
  config: BenchConfig,
  runDir: string,
  template: string,
  copy: string,
  withoutOrders: boolean,
) {
  await recreateDatabase(config, copy, template);
  if (withoutOrders) {
    // Periodic housekeeping jobs are singletons; everything else queued is the orders' work.
    await withClient(urlOf(config, copy), (client) =>
      client.query('DELETE FROM jobs WHERE singleton_key IS NULL'),
    );
  }
  const before = await cpuSnapshot();
  const startedAt = performance.now();
  const server = await startRampart(config, runDir, copy, true);
  let after: CpuSnapshot;
  try {
    const { left } = await waitForDueJobs(urlOf(config, copy), DRAIN_LIMIT_MS);
    if (left > 0) throw new Error(`${copy}: ${left} jobs still due after ${DRAIN_LIMIT_MS} ms`);
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
    throw new Error('usage: node --import tsx bench/profiling/worker-cost.ts [seconds] [rounds]');
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
