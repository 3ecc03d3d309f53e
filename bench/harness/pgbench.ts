/**
 * Baseline (d): PostgreSQL's own TPC-B-like load on the bench database, the ceiling any
 * write path in Rampart is stated against. Percentiles come from pgbench's per-transaction log,
 * because its summary gives only the mean.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type BenchConfig, databaseUrl } from './config.ts';
import { percentile } from './stats.ts';

const run = promisify(execFile);

export interface PgbenchResult {
  command: string;
  version: string;
  tps: number;
  latencyAverageMs: number;
  p50Ms: number;
  p99Ms: number;
  failedTransactions: number;
  transactions: number;
}

const CANDIDATES = [
  '/usr/bin/pgbench',
  '/usr/lib/postgresql/16/bin/pgbench',
  '/usr/lib/postgresql/15/bin/pgbench',
];

export function pgbenchBinary(): string {
  const found = [process.env.PGBENCH, ...CANDIDATES].find((candidate) => candidate && existsSync(candidate));
  if (!found) throw new Error(`pgbench not found (looked in ${CANDIDATES.join(', ')}; set PGBENCH)`);
  return found;
}

function connectionArgs(config: BenchConfig): string[] {
  const url = new URL(databaseUrl(config));
  const args = [
    '-h',
    url.hostname,
    '-p',
    url.port || '5432',
    '-U',
    decodeURIComponent(url.username || 'postgres'),
  ];
  return [...args, config.databaseName];
}

function numberAfter(output: string, pattern: RegExp, what: string): number {
  const match = pattern.exec(output);
  if (!match?.[1]) throw new Error(`pgbench output has no ${what}:\n${output}`);
  return Number(match[1]);
}

/** Per-transaction log lines: `client_id transaction_no time_us script_no epoch epoch_us …`. */
async function transactionLatenciesMs(logDir: string): Promise<number[]> {
  const latencies: number[] = [];
  for (const file of await readdir(logDir)) {
    const text = await readFile(path.join(logDir, file), 'utf8');
    for (const line of text.split('\n')) {
      const micros = Number(line.split(' ')[2]);
      if (Number.isFinite(micros) && line !== '') latencies.push(micros / 1000);
    }
  }
  return latencies.sort((a, b) => a - b);
}

/** Creates (or recreates) pgbench's tables at the configured scale. */
export async function initPgbench(config: BenchConfig): Promise<void> {
  const timeout = (config.durationS + 120) * 1000;
  await run(pgbenchBinary(), ['-i', '-q', '-s', String(config.pgbenchScale), ...connectionArgs(config)], {
    timeout,
  });
}

/** One timed TPC-B load on tables initPgbench made; `durationS` defaults to the configured one. */
export async function pgbenchLoad(config: BenchConfig, durationS = config.durationS): Promise<PgbenchResult> {
  const binary = pgbenchBinary();
  const connection = connectionArgs(config);
  const timeout = (durationS + 120) * 1000;
  const { stdout: versionOut } = await run(binary, ['--version']);
  const logDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-pgbench-'));
  try {
    const loadArgs = ['-c', String(config.pgbenchClients), '-j', String(config.pgbenchThreads)];
    const args = [...loadArgs, '-T', String(durationS), '-l', '--log-prefix', path.join(logDir, 'tx')];
    const { stdout } = await run(binary, [...args, ...connection], { timeout });
    const latencies = await transactionLatenciesMs(logDir);
    return {
      command:
        `pgbench -i -s ${config.pgbenchScale} ${config.databaseName} && ` +
        `pgbench ${loadArgs.join(' ')} -T ${durationS} -l ${config.databaseName}`,
      version: versionOut.trim(),
      tps: numberAfter(stdout, /^tps = ([\d.]+)/m, 'tps'),
      latencyAverageMs: numberAfter(stdout, /^latency average = ([\d.]+) ms/m, 'latency average'),
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      failedTransactions: /^number of failed transactions: (\d+)/m.test(stdout)
        ? numberAfter(stdout, /^number of failed transactions: (\d+)/m, 'failed transactions')
        : 0,
      transactions: latencies.length,
    };
  } finally {
    await rm(logDir, { recursive: true, force: true });
  }
}

/** (d) on its own, after the HTTP part: initialise, then one load of the configured duration. */
export async function runPgbench(config: BenchConfig): Promise<PgbenchResult> {
  await initPgbench(config);
  return pgbenchLoad(config);
}
