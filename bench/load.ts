/** Harness side of the load generator: fork it for one scenario, wait for its single answer. */
import { fork } from 'node:child_process';
import path from 'node:path';
import type { BenchConfig } from './config.ts';
import { repoRoot } from './server-process.ts';

export interface LoadJob {
  scenarioId: string;
  baseUrl: string;
  databaseUrl: string;
}

export interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  totalRequests: number;
  connectionErrors: number;
  timeouts: number;
  /** Responses whose status was not the scenario's expectedStatus. */
  unexpectedStatus: number;
  statusCounts: Record<string, number>;
  durationS: number;
}

export type LoadOutcome = { ok: true; result: LoadResult } | { ok: false; message: string };

/** Slack on top of warm-up + measurement for process start, fixtures and autocannon's drain. */
const LOAD_SLACK_MS = 30_000;

export async function runLoad(job: LoadJob, config: BenchConfig): Promise<LoadResult> {
  const child = fork(path.join(repoRoot, 'bench/load-generator.ts'), [JSON.stringify(job)], {
    cwd: repoRoot,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const limitMs = (config.warmupS + config.durationS) * 1000 + LOAD_SLACK_MS;
  return new Promise((resolve, reject) => {
    let answered = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`load generator for ${job.scenarioId} took over ${limitMs} ms`));
    }, limitMs);
    child.once('message', (message) => {
      answered = true;
      clearTimeout(timer);
      const outcome = message as LoadOutcome;
      if (outcome.ok) resolve(outcome.result);
      else reject(new Error(outcome.message));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!answered)
        reject(new Error(`load generator for ${job.scenarioId} exited with ${code} and no answer`));
    });
  });
}
