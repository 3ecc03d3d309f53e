/**
 * Servers under test, each in its own child process and process group. The group matters for
 * Rampart's embedded PostgreSQL: if Rampart ignores SIGTERM, killing the group takes postgres too
 * instead of leaving it holding the port for the next run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerSpec {
  name: string;
  /** Run `args` on plain node, without the tsx loader (Rampart's bundle in dist/, as npm start runs it). */
  plainNode?: boolean;
  /** Arguments after `node --import tsx`, relative to the repo root. */
  args: string[];
  /** Node options before `--import tsx`, e.g. `--cpu-prof` (profile.ts). */
  nodeArgs?: string[];
  env: NodeJS.ProcessEnv;
  baseUrl: string;
  readyPath: string;
  readyTimeoutMs: number;
  logPath: string;
}

export interface RunningServer {
  name: string;
  pid: number | undefined;
  baseUrl: string;
  logPath: string;
  /** From spawn to the first 200 on readyPath. */
  readyAfterMs: number;
  stop(): Promise<StopOutcome>;
}

export interface StopOutcome {
  /** True when the process left by itself after SIGTERM within the grace period. */
  clean: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

const READY_POLL_MS = 10;
const STOP_GRACE_MS = 15_000;
const STRAGGLER_GRACE_MS = 5_000;
const live = new Set<ChildProcess>();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

export async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', () => reject(new Error(`port ${port} is in use; is an earlier run still alive?`)));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

export function logTail(logPath: string, lines = 20): string {
  try {
    return readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function exitOf(child: ChildProcess): Promise<StopOutcome> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ clean: true, exitCode: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) =>
    child.once('exit', (exitCode, signal) => resolve({ clean: true, exitCode, signal })),
  );
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function groupAlive(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function groupLingers(child: ChildProcess, graceMs: number): Promise<boolean> {
  const deadline = performance.now() + graceMs;
  while (groupAlive(child)) {
    if (performance.now() > deadline) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function stopChild(child: ChildProcess): Promise<StopOutcome> {
  const exited = exitOf(child);
  child.kill('SIGTERM');
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), STOP_GRACE_MS));
  const first = await Promise.race([exited, timer]);
  if (first !== 'timeout') {
    live.delete(child);
    // A clean stop takes its own children (embedded postgres) with it; anything left is a leak.
    if (await groupLingers(child, STRAGGLER_GRACE_MS)) {
      killGroup(child);
      return { ...first, clean: false };
    }
    return first;
  }
  killGroup(child);
  const outcome = await exited;
  live.delete(child);
  return { ...outcome, clean: false };
}

async function answersOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Spawns the server and resolves once readyPath answers 200; rejects (with the log's tail) otherwise. */
export async function startServer(spec: ServerSpec): Promise<RunningServer> {
  const logFd = openSync(spec.logPath, 'a');
  const startedAt = performance.now();
  const loader = spec.plainNode ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...(spec.nodeArgs ?? []), ...loader, ...spec.args], {
    cwd: repoRoot,
    env: spec.env,
    detached: true,
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  live.add(child);
  const exited = exitOf(child);
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  const readyUrl = `${spec.baseUrl}${spec.readyPath}`;
  const deadline = startedAt + spec.readyTimeoutMs;
  while (!(await answersOk(readyUrl))) {
    if (hasExited || performance.now() > deadline) {
      const reason = hasExited ? `exited with ${child.exitCode ?? child.signalCode}` : 'did not become ready';
      await stopChild(child);
      throw new Error(`${spec.name} ${reason} (${readyUrl}); log tail:\n${logTail(spec.logPath)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  const readyAfterMs = performance.now() - startedAt;
  return {
    name: spec.name,
    pid: child.pid,
    baseUrl: spec.baseUrl,
    logPath: spec.logPath,
    readyAfterMs,
    stop: () => stopChild(child),
  };
}

/** Last resort on interrupt or watchdog: no server of ours outlives the harness. */
export function killAllServers(): void {
  for (const child of live) killGroup(child);
  live.clear();
}
