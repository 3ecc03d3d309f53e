/**
 * The load generator: a child process of its own so its CPU is not the server's and its event loop
 * does not share a tick with the harness. Started by load.ts with one job as JSON in argv; sends
 * one LoadOutcome back over IPC and exits.
 */
import autocannon from 'autocannon';
import { loadBenchConfig } from './config.ts';
import type { LoadJob, LoadOutcome, LoadResult } from './load.ts';
import { findScenario, type RequestSource, type RequestSpec } from './scenarios.ts';

function optionsFor(source: RequestSource, baseUrl: string, connections: number, durationS: number) {
  const common = { url: baseUrl, connections, duration: durationS, pipelining: 1, timeout: 10 };
  // autocannon takes the fixed request's path from the URL, not from a `path` option.
  if (typeof source !== 'function') {
    const { path, ...rest } = source;
    return { ...common, ...rest, url: `${baseUrl}${path}` };
  }
  // A fresh request per call; autocannon re-encodes it, which the fixed form avoids.
  return {
    ...common,
    requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, ...source() }) }],
  };
}

function summarise(result: autocannon.Result, expectedStatus: number): LoadResult {
  const statusCounts: Record<string, number> = {};
  let unexpectedStatus = 0;
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    const count = stats.count ?? 0;
    statusCounts[status] = count;
    if (Number(status) !== expectedStatus) unexpectedStatus += count;
  }
  return {
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    totalRequests: result.requests.total,
    connectionErrors: result.errors,
    timeouts: result.timeouts,
    unexpectedStatus,
    statusCounts,
    durationS: result.duration,
  };
}

async function runJob(job: LoadJob): Promise<LoadResult> {
  const config = loadBenchConfig();
  const scenario = findScenario(job.scenarioId);
  const source = await scenario.requests({ baseUrl: job.baseUrl, databaseUrl: job.databaseUrl, config });
  const firstRequest: RequestSpec = typeof source === 'function' ? source() : source;
  // One request up front: a wrong status shows as a clear message, not as 100% errors in a table.
  const probe = await fetch(`${job.baseUrl}${firstRequest.path}`, {
    method: firstRequest.method,
    headers: firstRequest.headers,
    body: firstRequest.body,
  });
  await probe.arrayBuffer();
  if (probe.status !== scenario.expectedStatus) {
    throw new Error(`${scenario.id}: first request got ${probe.status}, expected ${scenario.expectedStatus}`);
  }
  if (config.warmupS > 0) {
    await autocannon(optionsFor(source, job.baseUrl, config.connections, config.warmupS));
  }
  const result = await autocannon(optionsFor(source, job.baseUrl, config.connections, config.durationS));
  return summarise(result, scenario.expectedStatus);
}

function reply(outcome: LoadOutcome): void {
  process.send?.(outcome, () => process.exit(0));
}

// The harness went away (interrupt, watchdog): stop loading a server nobody is measuring.
process.once('disconnect', () => process.exit(1));

const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob;
runJob(job).then(
  (result) => reply({ ok: true, result }),
  (error: unknown) => reply({ ok: false, message: error instanceof Error ? error.message : String(error) }),
);
