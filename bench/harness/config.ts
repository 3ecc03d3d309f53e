/**
 * Every knob of the benchmark, read once from BENCH_* variables so a run is reproducible from the
 * command line recorded in RESULTS.md.
 */
export interface BenchConfig {
  /** Measured seconds per HTTP measurement (one scenario in one round) and for pgbench. */
  durationS: number;
  /**
   * Seconds of discarded load before each measurement, so the server that sat idle while the other
   * was measured is running again; a scenario's first measurement gets twice this (JIT, pool).
   */
  warmupS: number;
  /** Rounds of alternating measurements: every ratio is the median of this many per-round ratios. */
  rounds: number;
  /** Rounds of each fixed-rate latency run (p99 at a share of the measured throughput). */
  latencyRounds: number;
  connections: number;
  /** PostgreSQL server (no database part) the bench database is created on. */
  pgServerUrl: string;
  databaseName: string;
  pgbenchClients: number;
  pgbenchThreads: number;
  /** Scale ≥ clients keeps TPC-B from queueing on one branch row, which would measure lock waits. */
  pgbenchScale: number;
  /** Rows pre-populated for baseline (b)'s primary-key SELECT. */
  kvRows: number;
  /** Users the spread-out transfer scenario moves money between (issue 6). */
  transferUsers: number;
  /** Postings in the ledger of the small and the large ledger database (issue 6's flat-read figure). */
  ledgerPostingsSmall: number;
  ledgerPostingsLarge: number;
  /** Past card orders of the light and the heavy billing address (issue 7's flat-limits figure). */
  spendOrdersSmall: number;
  spendOrdersLarge: number;
  coldStartRuns: number;
  embeddedPgPort: number;
  /** Scenario ids (and `pgbench`, `cold-start`) to run; undefined runs everything. */
  only: ReadonlySet<string> | undefined;
  resultsPath: string;
  /** Runs kept in RESULTS.md, newest first. */
  keptRuns: number;
}

export type Env = Record<string, string | undefined>;

export function positiveInt(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new Error(`${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  }
  return value;
}

function nonNegativeInt(env: Env, name: string, fallback: number, max: number): number {
  if (env[name] === '0') return 0;
  return positiveInt(env, name, fallback, max);
}

/** Load and database traffic must stay on this machine: refuse anything but loopback. */
function loopbackServerUrl(raw: string): string {
  const url = new URL(raw);
  const loopback =
    url.hostname === 'localhost' || url.hostname === '[::1]' || url.hostname.startsWith('127.');
  if (!loopback) throw new Error(`BENCH_PG_URL must point at a loopback address, got ${url.hostname}`);
  url.pathname = '';
  return url.toString().replace(/\/$/, '');
}

/** The name goes into DROP/CREATE DATABASE, which take no parameters. */
function identifier(raw: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw))
    throw new Error(`BENCH_DB_NAME must be a plain identifier, got "${raw}"`);
  return raw;
}

export function loadBenchConfig(env: Env = process.env): BenchConfig {
  const only = env.BENCH_ONLY?.trim();
  return {
    durationS: positiveInt(env, 'BENCH_DURATION_S', 4, 600),
    warmupS: nonNegativeInt(env, 'BENCH_WARMUP_S', 1, 60),
    rounds: positiveInt(env, 'BENCH_ROUNDS', 5, 100),
    latencyRounds: positiveInt(env, 'BENCH_LATENCY_ROUNDS', 3, 100),
    connections: positiveInt(env, 'BENCH_CONNECTIONS', 50, 1000),
    pgServerUrl: loopbackServerUrl(env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432'),
    databaseName: identifier(env.BENCH_DB_NAME || 'rampart_bench'),
    pgbenchClients: 16,
    pgbenchThreads: 2,
    pgbenchScale: positiveInt(env, 'BENCH_PGBENCH_SCALE', 16, 1000),
    kvRows: positiveInt(env, 'BENCH_KV_ROWS', 10_000, 10_000_000),
    transferUsers: positiveInt(env, 'BENCH_TRANSFER_USERS', 100, 10_000),
    ledgerPostingsSmall: positiveInt(env, 'BENCH_LEDGER_POSTINGS_SMALL', 10_000, 100_000_000),
    ledgerPostingsLarge: positiveInt(env, 'BENCH_LEDGER_POSTINGS_LARGE', 1_000_000, 100_000_000),
    spendOrdersSmall: positiveInt(env, 'BENCH_SPEND_ORDERS_SMALL', 10, 10_000_000),
    spendOrdersLarge: positiveInt(env, 'BENCH_SPEND_ORDERS_LARGE', 100_000, 10_000_000),
    coldStartRuns: nonNegativeInt(env, 'BENCH_COLD_START_RUNS', 3, 20),
    embeddedPgPort: positiveInt(env, 'BENCH_EMBEDDED_PG_PORT', 54391, 65535),
    only: only ? new Set(only.split(',').map((id) => id.trim())) : undefined,
    resultsPath: env.BENCH_RESULTS || 'bench/RESULTS.md',
    keptRuns: positiveInt(env, 'BENCH_KEPT_RUNS', 5, 100),
  };
}

export function databaseUrl(config: BenchConfig): string {
  return `${config.pgServerUrl}/${config.databaseName}`;
}

export function selected(config: BenchConfig, id: string): boolean {
  return config.only === undefined || config.only.has(id);
}
