/**
 * The load generator: a child process of its own so its CPU is not the server's and its event loop
 * does not share a tick with the harness. Started once per run by load.ts; it answers commands
 * over IPC (prepare a scenario's fixtures, measure it at full load, measure it at a fixed rate)
 * until the harness disconnects. Fixtures made by `prepare` live for the whole run, so rounds of
 * the same scenario reuse one partner, one key.
 */
import autocannon from 'autocannon';
import { RawHttpPool, requestBytes } from '../../test/helpers/raw-http.ts';
import { findScenario } from '../scenarios/scenarios.ts';
import { loadBenchConfig } from './config.ts';
import type { LoadCommand, LoadReply, LoadResult, PacedResult } from './load.ts';
import type { RequestSource, RequestSpec, ScenarioContext } from './scenario.ts';
import { percentile } from './stats.ts';

interface Prepared {
  baseUrl: string;
  expectedStatus: number;
  source: RequestSource;
}

const config = loadBenchConfig();
const prepared = new Map<string, Prepared>();

function optionsFor(source: RequestSource, baseUrl: string, durationS: number) {
  const common = {
    url: baseUrl,
    connections: config.connections,
    duration: durationS,
    pipelining: 1,
    timeout: 10,
  };
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

function nextRequest(source: RequestSource): RequestSpec {
  return typeof source === 'function' ? source() : source;
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

function preparedScenario(scenarioId: string): Prepared {
  const entry = prepared.get(scenarioId);
  if (!entry) throw new Error(`scenario ${scenarioId} was not prepared`);
  return entry;
}

async function prepare(command: Extract<LoadCommand, { type: 'prepare' }>): Promise<void> {
  const scenario = findScenario(command.scenarioId);
  const context: ScenarioContext = {
    baseUrl: command.baseUrl,
    operatorToken: command.operatorToken,
    databaseUrl: command.databaseUrl,
    config,
  };
  const source = await scenario.requests(context);
  // One request up front: a wrong status shows as a clear message, not as 100% errors in a table.
  const probe = nextRequest(source);
  const response = await fetch(`${command.baseUrl}${probe.path}`, {
    method: probe.method,
    headers: probe.headers,
    body: probe.body,
  });
  await response.arrayBuffer();
  if (response.status !== scenario.expectedStatus) {
    throw new Error(
      `${scenario.id}: first request got ${response.status}, expected ${scenario.expectedStatus}`,
    );
  }
  prepared.set(scenario.id, { baseUrl: command.baseUrl, expectedStatus: scenario.expectedStatus, source });
}

/** Closed loop: every connection sends its next request as soon as the answer arrives. */
async function measure(command: Extract<LoadCommand, { type: 'measure' }>): Promise<LoadResult> {
  const { baseUrl, expectedStatus, source } = preparedScenario(command.scenarioId);
  if (command.warmupS > 0) await autocannon(optionsFor(source, baseUrl, command.warmupS));
  const result = await autocannon(optionsFor(source, baseUrl, command.durationS));
  return summarise(result, expectedStatus);
}

/**
 * Open loop at a fixed rate: requests leave evenly spaced (every millisecond, the ones now due),
 * whether or not earlier ones have been answered, over up to `connections` keep-alive sockets
 * (raw-http.ts: a fraction of http.request's CPU per request, on the cores the server shares).
 * Latency runs from the moment a request is handed to the pool to its last response byte,
 * so time spent waiting for a free socket counts, but this process's own timer lateness does not
 * (it is reported as maxLagMs instead). autocannon's overallRate is not used for this: it lets each connection
 * send its per-second quota back to back at the start of every second, so the server sees full
 * concurrency in bursts and the p99 is that of full load.
 */
async function paced(command: Extract<LoadCommand, { type: 'paced' }>): Promise<PacedResult> {
  const { baseUrl, expectedStatus, source } = preparedScenario(command.scenarioId);
  const target = new URL(baseUrl);
  const pool = new RawHttpPool(target.hostname, Number(target.port), config.connections);
  const fixedBytes = typeof source === 'function' ? undefined : requestBytes(target.host, source);
  const latencies: number[] = [];
  const timeline: [number, number][] | undefined = process.env.PACED_TIMELINE ? [] : undefined;
  const counts = { sent: 0, answered: 0, unexpectedStatus: 0, errors: 0, maxLagMs: 0 };
  const send = async (sentAt: number, record: boolean) => {
    const bytes = fixedBytes ?? requestBytes(target.host, nextRequest(source));
    try {
      const status = await pool.request(bytes);
      if (!record) return;
      counts.answered += 1;
      const latencyMs = performance.now() - sentAt;
      timeline?.push([sentAt, latencyMs]);
      if (status === expectedStatus) latencies.push(latencyMs);
      else counts.unexpectedStatus += 1;
    } catch {
      if (record) counts.errors += 1;
    }
  };

  const run = async (seconds: number, record: boolean) => {
    const inFlight = new Set<Promise<void>>();
    const startedAt = performance.now();
    const total = Math.round(command.rate * seconds);
    let issued = 0;
    while (issued < total) {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - startedAt) / 1000) * command.rate) + 1);
      for (; issued < due; issued += 1) {
        const sendAt = performance.now();
        if (record) {
          counts.sent += 1;
          counts.maxLagMs = Math.max(counts.maxLagMs, sendAt - (startedAt + (issued / command.rate) * 1000));
        }
        const pending = send(sendAt, record);
        inFlight.add(pending);
        void pending.then(() => inFlight.delete(pending));
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const sendingS = (performance.now() - startedAt) / 1000;
    await Promise.all(inFlight);
    return sendingS;
  };

  if (command.warmupS > 0) await run(command.warmupS, false);
  const sendingS = await run(command.durationS, true);
  pool.destroy();
  if (timeline) writeTimeline(timeline);
  latencies.sort((left, right) => left - right);
  return {
    targetRate: command.rate,
    achievedRate: counts.sent / sendingS,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.at(-1) ?? Number.NaN,
    maxLagMs: counts.maxLagMs,
    answered: counts.answered,
    unexpectedStatus: counts.unexpectedStatus,
    errors: counts.errors,
  };
}

/** PACED_TIMELINE=1 (diagnosis only): per 100 ms of sending, requests and their worst latency, on stderr. */
function writeTimeline(timeline: [number, number][]): void {
  const start = timeline.reduce((min, [at]) => Math.min(min, at), Number.POSITIVE_INFINITY);
  const buckets = new Map<number, { count: number; worst: number }>();
  for (const [at, latency] of timeline) {
    const bucket = Math.floor((at - start) / 100);
    const entry = buckets.get(bucket) ?? { count: 0, worst: 0 };
    entry.count += 1;
    entry.worst = Math.max(entry.worst, latency);
    buckets.set(bucket, entry);
  }
  const lines = [...buckets.entries()]
    .sort(([left], [right]) => left - right)
    .filter(([, entry]) => entry.worst > 5)
    .map(([bucket, entry]) => `${bucket * 100} ms: ${entry.count} sent, worst ${entry.worst.toFixed(1)} ms`);
  process.stderr.write(`paced timeline (buckets with a request over 5 ms):\n${lines.join('\n')}\n`);
}

async function handle(command: LoadCommand): Promise<unknown> {
  switch (command.type) {
    case 'prepare':
      return prepare(command);
    case 'measure':
      return measure(command);
    case 'paced':
      return paced(command);
  }
}

// The harness went away (interrupt, watchdog, end of run): stop loading a server nobody is measuring.
process.once('disconnect', () => process.exit(0));

process.on('message', (message) => {
  const command = message as LoadCommand;
  handle(command).then(
    (value) => process.send?.({ id: command.id, ok: true, value } satisfies LoadReply),
    (error: unknown) =>
      process.send?.({
        id: command.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      } satisfies LoadReply),
  );
});
