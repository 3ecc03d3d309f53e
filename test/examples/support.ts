import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort, type RampartProcess, spawnRampart } from '../helpers/process.ts';

/** The variables examples/README.md documents, as a first `npm start` would give them. */
export interface SandboxEnv {
  RAMPART_BASE_URL: string;
  RAMPART_ACCOUNT_ID: string;
  RAMPART_API_KEY: string;
  RAMPART_SECRET_KEY: string;
  RAMPART_OPERATOR_TOKEN: string;
}

export interface Sandbox {
  env: SandboxEnv;
  process: RampartProcess;
  database: TestDatabase;
  stop(): Promise<void>;
}

/** The value printed after `label` in the start banner. */
function bannerValue(stdout: string, label: string): string {
  const match = new RegExp(`^\\s+${label}\\s+(\\S+)$`, 'm').exec(stdout);
  if (!match) throw new Error(`banner has no ${label}: ${stdout}`);
  return match[1]!;
}

/**
 * A real `rampart serve` (workers included) on a fresh database and data directory, as a first
 * `npm start` runs it; the credentials come from its banner, as a reader of the guides gets them.
 */
export async function startSandbox(): Promise<Sandbox> {
  const database = await freshDatabase({ migrated: false });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'rampart-examples-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = spawnRampart(['serve'], {
    DATABASE_URL: database.url,
    RAMPART_DATA_DIR: dataDir,
    PORT: String(port),
    RAMPART_PUBLIC_URL: baseUrl,
    RAMPART_WORKER_POLL_MS: '50',
    RAMPART_SANDBOX_CHAIN_DELAY_MS: '100',
    LOG_LEVEL: 'warn',
  });
  const stop = async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await server.waitForStdout('webhookSecret');
  } catch (error) {
    await stop();
    throw error;
  }
  const banner = server.stdout();
  const operatorToken = /Operator token \(shown once[^\n]*\n\s+(\S+)/.exec(banner)?.[1];
  if (!operatorToken) throw new Error(`banner has no operator token: ${banner}`);
  return {
    env: {
      RAMPART_BASE_URL: baseUrl,
      RAMPART_ACCOUNT_ID: bannerValue(banner, 'accountId'),
      RAMPART_API_KEY: bannerValue(banner, 'apiKey'),
      RAMPART_SECRET_KEY: bannerValue(banner, 'secretKey'),
      RAMPART_OPERATOR_TOKEN: operatorToken,
    },
    process: server,
    database,
    stop,
  };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The command examples/README.md gives for a file: tsx with the SDK's source condition, or bash. */
export function commandFor(file: string): string[] {
  if (file.endsWith('.sh')) return ['bash', file];
  return [process.execPath, '--conditions=rampart-source', '--import', 'tsx', file];
}

/** Runs an example as its own process with exactly `env` (plus PATH); kills it after `timeoutMs`. */
export function runExample(file: string, env: Record<string, string>, timeoutMs = 30_000): Promise<Run> {
  const [command, ...args] = commandFor(file);
  const child = spawn(command!, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
