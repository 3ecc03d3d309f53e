/** How to start each server a scenario can target: the baseline program and Rampart itself. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchConfig } from './config.ts';
import type { TargetName } from './scenario.ts';
import { freePort, type RunningServer, repoRoot, type ServerSpec, startServer } from './server-process.ts';

export interface TargetOptions {
  config: BenchConfig;
  /** Scratch directory of this run: logs, Rampart's data dir. */
  runDir: string;
  /** Unset: Rampart starts its embedded PostgreSQL under dataDir. */
  databaseUrl: string | undefined;
  dataDir?: string;
  readyTimeoutMs?: number;
  logName?: string;
  /** Variables on top of the bench's own (e.g. a master key shared by two servers). */
  env?: Record<string, string>;
}

/**
 * Rampart's operator token in the bench: known, so fixtures can be made through the operator API
 * without reading the sandbox's generated secrets file. Only ever used on 127.0.0.1.
 */
export const BENCH_OPERATOR_TOKEN = 'rampart-bench-operator-token-not-a-secret-0001';

/**
 * A master key for servers that share one database (the mix's two servers): each would otherwise
 * generate its own in its data dir and could not read secrets the other one sealed. Loopback only.
 */
export const BENCH_MASTER_KEY = 'b3'.repeat(32);

/** The highest per-minute limit src/config.ts accepts. */
const RATE_LIMIT_CEILING = 10_000_000;

/** The parent's env minus anything that would point a child at another database or port. */
function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // REDIS_URL too: runs stay comparable only if rate-limit counters always live in process memory.
  const foreign = [
    'DATABASE_URL',
    'PORT',
    'HOST',
    'RAMPART_DATA_DIR',
    'RAMPART_EMBEDDED_PG_PORT',
    'REDIS_URL',
  ];
  for (const name of foreign) {
    delete env[name];
  }
  return { ...env, ...overrides };
}

let built = false;

/**
 * The node options `npm start` gives the server (package.json's start script), so the bench runs
 * it with the same heap settings as a partner's deployment does.
 */
export function startNodeArgs(): string[] {
  const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  const start = String(packageJson.scripts?.start ?? '');
  const options = /\bnode((?: --[\w-]+(?:=\S+)?)*) dist\/main\.js serve\b/.exec(start)?.[1];
  if (options === undefined) throw new Error(`package.json start script not understood: ${start}`);
  return options.split(' ').filter(Boolean);
}

/** Rampart runs as npm start runs it: the bundle in dist/, built from the working tree once per bench process. */
function ensureBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  built = true;
}

export async function rampartSpec(options: TargetOptions): Promise<ServerSpec> {
  ensureBuilt();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const overrides: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    RAMPART_PUBLIC_URL: baseUrl,
    RAMPART_OPERATOR_TOKEN: BENCH_OPERATOR_TOKEN,
    RAMPART_DATA_DIR: options.dataDir ?? path.join(options.runDir, 'rampart-data'),
    RAMPART_EMBEDDED_PG_PORT: String(options.config.embeddedPgPort),
    // All load comes from one IP and one key per scenario: raise the caps to the config's maximum so they
    // never trip, while the limiter still counts every request as it does in production.
    RAMPART_RATE_LIMIT_PER_IP: String(RATE_LIMIT_CEILING),
    RAMPART_RATE_LIMIT_PER_KEY: String(RATE_LIMIT_CEILING),
  };
  if (options.databaseUrl) overrides.DATABASE_URL = options.databaseUrl;
  Object.assign(overrides, options.env);
  return {
    name: 'rampart',
    args: ['dist/main.js', 'serve'],
    nodeArgs: startNodeArgs(),
    plainNode: true,
    env: childEnv(overrides),
    baseUrl,
    readyPath: '/readyz',
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
    logPath: path.join(options.runDir, options.logName ?? 'rampart.log'),
  };
}

async function baselineSpec(options: TargetOptions): Promise<ServerSpec> {
  if (!options.databaseUrl) throw new Error('the baseline server needs a database URL');
  const port = await freePort();
  return {
    name: 'baseline',
    args: ['bench/harness/baseline-server.ts'],
    env: childEnv({
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      BENCH_KV_ROWS: String(options.config.kvRows),
    }),
    baseUrl: `http://127.0.0.1:${port}`,
    readyPath: '/readyz',
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
    logPath: path.join(options.runDir, options.logName ?? 'baseline.log'),
  };
}

/**
 * Rampart on a database of its own whose ledger holds only what its fixtures seed: issue 6's reads
 * are compared between a small and a large ledger, each served by its own process.
 */
function ledgerSizedSpec(size: 'small' | 'large') {
  return (options: TargetOptions) =>
    rampartSpec({
      ...options,
      dataDir: options.dataDir ?? path.join(options.runDir, `rampart-data-ledger-${size}`),
      logName: options.logName ?? `rampart-ledger-${size}.log`,
    });
}

const specs: Record<TargetName, (options: TargetOptions) => Promise<ServerSpec>> = {
  baseline: baselineSpec,
  rampart: rampartSpec,
  'rampart-ledger-small': ledgerSizedSpec('small'),
  'rampart-ledger-large': ledgerSizedSpec('large'),
};

/** The database a target serves from: the bench database, or its own for the ledger-sized targets. */
export function targetDatabaseName(target: TargetName, config: BenchConfig): string {
  switch (target) {
    case 'rampart-ledger-small':
      return `${config.databaseName}_ledger_small`;
    case 'rampart-ledger-large':
      return `${config.databaseName}_ledger_large`;
    default:
      return config.databaseName;
  }
}

export function targetDatabaseUrl(target: TargetName, config: BenchConfig): string {
  return `${config.pgServerUrl}/${targetDatabaseName(target, config)}`;
}

export function targetSpec(target: TargetName, options: TargetOptions): Promise<ServerSpec> {
  return specs[target](options);
}

export async function startTarget(target: TargetName, options: TargetOptions): Promise<RunningServer> {
  return startServer(await specs[target](options));
}
