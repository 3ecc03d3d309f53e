/**
 * Where a server's garbage comes from: a preload for the profiled server (plain node runs dist/,
 * hence JavaScript), given through PROFILE_NODE_ARGS:
 *   ALLOC_THREAD=main ALLOC_DELAY_MS=12000 ALLOC_FOR_MS=8000 \
 *   PROFILE_NODE_ARGS="--import ./bench/profiling/alloc-sampler.mjs" node --import tsx bench/profiling/profile.ts card-order 25
 * ALLOC_DELAY_MS after the thread starts (past the fixtures and the warm-up), V8's sampling heap
 * profiler runs for ALLOC_FOR_MS on the chosen thread (`main` or `worker`: the job runner's
 * thread), counting objects the young and old collections freed too, so it shows what is
 * allocated, not what stays. The profile goes to ALLOC_OUT (default
 * /tmp/rampart-alloc-<thread>.heapprofile); `bench/profiling/alloc-report.ts` reads it.
 */
import { writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

const thread = process.env.ALLOC_THREAD ?? 'main';
const delayMs = Number(process.env.ALLOC_DELAY_MS ?? 12000);
const forMs = Number(process.env.ALLOC_FOR_MS ?? 8000);
const out = process.env.ALLOC_OUT ?? `/tmp/rampart-alloc-${thread}.heapprofile`;

if ((thread === 'main') === isMainThread) {
  const session = new inspector.Session();
  session.connect();
  setTimeout(() => {
    session.post(
      'HeapProfiler.startSampling',
      {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      },
      (error) => {
        if (error) process.stderr.write(`alloc-sampler: ${error.message}\n`);
      },
    );
    setTimeout(() => {
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (error) return process.stderr.write(`alloc-sampler: ${error.message}\n`);
        writeFileSync(out, JSON.stringify(result.profile));
        process.stderr.write(`alloc-sampler: ${forMs} ms of ${thread}-thread allocations in ${out}\n`);
      });
    }, forMs).unref();
  }, delayMs).unref();
}
