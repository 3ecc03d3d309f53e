/** The facts a reader needs to judge whether another run's numbers are comparable to these. */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BenchConfig } from './config.ts';
import { postgresVersion } from './database.ts';
import { repoRoot } from './server-process.ts';

const exec = promisify(execFile);

export interface MachineFacts {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  autocannon: string;
  /** 1-minute load average when the run began: other work on the box skews every ratio. */
  loadAverageAtStart: number;
  /** The commit measured, and whether src/ or migrations/ had uncommitted changes on disk. */
  revision: string;
}

async function revision(): Promise<string> {
  const git = (...args: string[]) =>
    exec('git', args, { cwd: repoRoot }).then(
      ({ stdout }) => stdout.trim(),
      () => '',
    );
  const head = await git('rev-parse', '--short', 'HEAD');
  if (!head) return 'unknown';
  const dirty = (await git('status', '--porcelain', '--', 'src', 'migrations')).split('\n').filter(Boolean);
  return dirty.length === 0
    ? head
    : `${head} + uncommitted changes to ${dirty.length} file(s) in src/ or migrations/`;
}

async function packageVersion(name: string): Promise<string> {
  try {
    const text = await readFile(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export async function machineFacts(config: BenchConfig, loadAverageAtStart: number): Promise<MachineFacts> {
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: os.totalmem() / 1024 ** 3,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: await postgresVersion(config).catch(() => 'unknown'),
    autocannon: await packageVersion('autocannon'),
    loadAverageAtStart,
    revision: await revision(),
  };
}

/** The command as typed, with the BENCH_* settings that changed it, so the run can be repeated. */
export function invokingCommand(env: NodeJS.ProcessEnv = process.env): string {
  const settings = Object.entries(env)
    .filter(([name, value]) => name.startsWith('BENCH_') && value !== undefined && value !== '')
    .map(([name, value]) => `${name}=${value}`)
    .sort();
  const command =
    env.npm_lifecycle_event === 'bench' ? 'npm run bench' : 'node --import tsx bench/harness/run.ts';
  return [...settings, command].join(' ');
}
