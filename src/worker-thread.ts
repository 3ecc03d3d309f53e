/**
 * Entry of `serve`'s worker thread (worker-thread-host.ts): runs the background workers as
 * `rampart worker` does, on the database and secrets the parent resolved, until told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startRampart } from './runtime.ts';
import { THREAD_READY, THREAD_STOP, type WorkerThreadData } from './worker-thread-host.ts';

if (!parentPort) throw new Error('worker-thread.ts runs only as a worker thread');
const port = parentPort;
const { config } = workerData as WorkerThreadData;
const running = await startRampart({ ...config, masterKey: Buffer.from(config.masterKey) }, 'worker');
port.on('message', (message) => {
  if (message !== THREAD_STOP) return;
  // Closing the port lets the thread end once the workers' pools and timers are gone.
  void running.stop().finally(() => port.close());
});
port.postMessage(THREAD_READY);
