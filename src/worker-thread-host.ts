import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { sleep } from './platform/clock.ts';

/**
 * `serve`'s background workers on a thread of their own (RAMPART_WORKER_THREAD, on by default).
 *
 * On the event loop that answers requests, a worker batch's synchronous work (a hundred orders'
 * ledger arguments, row parsing) would make every request in flight wait, and every statement of
 * a request's transaction wait its turn behind it, leaving cores idle. On its own thread the batch
 * runs beside the requests. The thread is `rampart worker` (runtime.ts, mode 'worker') in this process: its
 * own pools on the same database, the same jobs, the same leases; nothing is shared in memory, so
 * a second process running workers is no different from it.
 */
export interface WorkerThreadHost {
  /** Settles when the first thread has started its workers; rejects if it could not. */
  ready: Promise<void>;
  /** Lets the thread finish its jobs (for at most RAMPART_SHUTDOWN_TIMEOUT_MS), then ends it. */
  stop(): Promise<void>;
}

/** What the thread gets: the parent's config with the database and secrets it resolved. */
export interface WorkerThreadData {
  config: Omit<Config, 'masterKey'> & { masterKey: Uint8Array };
}

/** A thread that ends by itself (a bug, its database gone) is started again after this. */
const RESTART_DELAY_MS = 1000;

/** Messages between the threads. */
export const THREAD_READY = 'ready';
export const THREAD_STOP = 'stop';

function spawnThread(data: WorkerThreadData): Worker {
  const here = import.meta.url;
  // The sources (tests, tsx) load TypeScript through tsx's loader, registered in the thread
  // before its entry is imported; the bundle (npm start) runs dist/worker-thread.js as it is.
  if (here.endsWith('.ts')) {
    const entry = JSON.stringify(new URL('./worker-thread.ts', here).href);
    const code = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); })`;
    return new Worker(code, { eval: true, workerData: data });
  }
  return new Worker(new URL('./worker-thread.js', here), { workerData: data });
}

/**
 * Starts the thread (`spawn`: the worker-thread entry; tests give threads of their own) and
 * starts it again whenever it ends by itself after it was ready, until stop().
 */
export function startWorkerThread(
  config: Config & { databaseUrl: string; masterKey: Buffer },
  log: Logger,
  spawn: (data: WorkerThreadData) => Worker = spawnThread,
): WorkerThreadHost {
  // A copy of the key's bytes: cloning a Buffer for the thread would send the whole (possibly
  // pooled, shared) memory behind it.
  const data: WorkerThreadData = { config: { ...config, masterKey: new Uint8Array(config.masterKey) } };
  let current: Worker | undefined;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let markReady: () => void = () => undefined;
  let failStart: (error: Error) => void = () => undefined;
  let started = false;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failStart = reject;
  });
  // The caller awaits `ready` once its own start-up is done; a failure before then is not unhandled.
  ready.catch(() => undefined);

  const start = () => {
    const thread = spawn(data);
    current = thread;
    let lastError: Error | undefined;
    thread.on('message', (message) => {
      if (message !== THREAD_READY) return;
      started = true;
      markReady();
    });
    thread.on('error', (error) => {
      lastError = error;
      log.error({ err: error }, 'worker thread failed');
    });
    thread.on('exit', (code) => {
      if (current === thread) current = undefined;
      if (stopping) return;
      // The first start failing fails the server's start, as the workers failing inline would.
      if (!started) {
        failStart(lastError ?? new Error(`worker thread exited with code ${code} before starting`));
        return;
      }
      log.error({ code }, `worker thread ended; starting it again in ${RESTART_DELAY_MS} ms`);
      restartTimer = setTimeout(start, RESTART_DELAY_MS);
      restartTimer.unref();
    });
  };
  start();

  const stop = async () => {
    stopping = true;
    clearTimeout(restartTimer);
    const thread = current;
    if (!thread) return;
    const exited = new Promise<'exited'>((resolve) => thread.once('exit', () => resolve('exited')));
    thread.postMessage(THREAD_STOP);
    const late = sleep(config.shutdownTimeoutMs).then(() => 'late' as const);
    if ((await Promise.race([exited, late])) === 'late') await thread.terminate();
  };
  return { ready, stop };
}
