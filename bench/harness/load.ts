/**
 * Harness side of the load generator: one child process for the whole run, driven by commands over
 * IPC, each answered once. Every command has a deadline, so a stuck generator fails the
 * measurement instead of the run.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './server-process.ts';

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

export interface PacedResult {
  targetRate: number;
  /** Requests sent per second of sending; below targetRate when the generator fell behind. */
  achievedRate: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Worst delay of a send behind its evenly spaced schedule: the generator's own lateness. */
  maxLagMs: number;
  answered: number;
  unexpectedStatus: number;
  errors: number;
}

export type LoadCommand = { id: number } & (
  | { type: 'prepare'; scenarioId: string; baseUrl: string; databaseUrl: string; operatorToken: string }
  | { type: 'measure'; scenarioId: string; warmupS: number; durationS: number }
  | { type: 'paced'; scenarioId: string; rate: number; warmupS: number; durationS: number }
);

/** LoadCommand without its id, as callers write it. */
type Command = LoadCommand extends infer C ? (C extends LoadCommand ? Omit<C, 'id'> : never) : never;

export type LoadReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

/** Slack on top of the loaded seconds: fixtures, connection set-up, draining the last answers. */
const SLACK_MS = 30_000;

export class LoadGenerator {
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: LoadReply) => void>();
  private exited = false;

  constructor() {
    this.child = fork(path.join(repoRoot, 'bench/harness/load-generator.ts'), [], {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (message) => {
      const reply = message as LoadReply;
      this.waiting.get(reply.id)?.(reply);
    });
    this.child.once('exit', (code) => {
      this.exited = true;
      for (const [id, answer] of this.waiting)
        answer({ id, ok: false, message: `load generator exited (${code})` });
    });
  }

  /** `fixtureS`: seconds the fixtures may take on top of the usual slack (bulk seeding). */
  prepare(
    scenarioId: string,
    baseUrl: string,
    databaseUrl: string,
    operatorToken: string,
    fixtureS = 0,
  ): Promise<void> {
    return this.send(
      { type: 'prepare', scenarioId, baseUrl, databaseUrl, operatorToken },
      fixtureS,
    ) as Promise<void>;
  }

  measure(scenarioId: string, warmupS: number, durationS: number): Promise<LoadResult> {
    return this.send(
      { type: 'measure', scenarioId, warmupS, durationS },
      warmupS + durationS,
    ) as Promise<LoadResult>;
  }

  paced(scenarioId: string, rate: number, warmupS: number, durationS: number): Promise<PacedResult> {
    const command = { type: 'paced' as const, scenarioId, rate, warmupS, durationS };
    return this.send(command, warmupS + durationS) as Promise<PacedResult>;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  stop(): void {
    if (!this.exited) this.child.kill('SIGTERM');
  }

  private send(command: Command, loadedS: number): Promise<unknown> {
    if (this.exited) return Promise.reject(new Error('load generator is not running'));
    const id = this.nextId++;
    const limitMs = loadedS * 1000 + SLACK_MS;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        // A late answer would land on nobody; a generator that overran is not trusted again.
        this.stop();
        reject(new Error(`load generator: ${command.type} ${command.scenarioId} took over ${limitMs} ms`));
      }, limitMs);
      this.waiting.set(id, (reply) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        if (reply.ok) resolve(reply.value);
        else reject(new Error(reply.message));
      });
      this.child.send({ ...command, id });
    });
  }
}
