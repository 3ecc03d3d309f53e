/**
 * `npm run bench`: Rampart's scenarios, baselines (a)–(d), then the cold-start figure, all in one
 * run so every ratio compares numbers taken minutes apart on the same machine. Writes RESULTS.md and
 * exits non-zero when a figure fails or a measurement could not be taken.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type ColdStartResult, measureColdStart } from './cold-start.ts';
import { type BenchConfig, databaseUrl, loadBenchConfig, selected } from './config.ts';
import { recreateBenchDatabase } from './database.ts';
import { checkFigures, type Row } from './figures.ts';
import { runLoad } from './load.ts';
import { invokingCommand, machineFacts } from './machine.ts';
import { runPgbench } from './pgbench.ts';
import { prependRun, renderRun } from './report.ts';
import { type HttpScenario, scenarios, type TargetName } from './scenarios.ts';
import { killAllServers, repoRoot } from './server-process.ts';
import { startTarget } from './targets.ts';

/**
 * Rampart first, baselines straight after: Rampart's last scenario (the 404) is then measured seconds
 * before (a), the baseline it is stated against, so drift from other work on the box mostly cancels.
 * pgbench comes after every HTTP scenario so the checkpoints of its data load do not land in them.
 */
const MEASUREMENT_ORDER: readonly TargetName[] = ['rampart', 'baseline'];

/** Readers expect the baselines first: (a)–(c), (d), then Rampart's rows in scenario order. */
function inTableOrder(rows: readonly Row[]): Row[] {
  const baselineIds = scenarios
    .filter((scenario) => scenario.target === 'baseline')
    .map((scenario) => scenario.id);
  const others = scenarios
    .filter((scenario) => scenario.target !== 'baseline')
    .map((scenario) => scenario.id);
  const order = [...baselineIds, 'pgbench', ...others];
  return [...rows].sort((left, right) => order.indexOf(left.id) - order.indexOf(right.id));
}

function log(line: string): void {
  process.stdout.write(`[bench] ${line}\n`);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error';
}

function unmeasured(scenario: HttpScenario, note: string): Row {
  return {
    ...rowBase(scenario),
    throughput: undefined,
    p50Ms: undefined,
    p99Ms: undefined,
    errors: undefined,
    note,
  };
}

function rowBase(scenario: HttpScenario): Pick<Row, 'id' | 'label' | 'unit' | 'comparedWith'> {
  return { id: scenario.id, label: scenario.label, unit: 'req/s', comparedWith: scenario.comparedWith };
}

/** Starts the target once, runs its scenarios one after another, stops it. */
async function runTarget(target: TargetName, config: BenchConfig, runDir: string, notes: string[]) {
  const chosen = scenarios.filter((scenario) => scenario.target === target && selected(config, scenario.id));
  if (chosen.length === 0) return [];
  let server: Awaited<ReturnType<typeof startTarget>>;
  try {
    server = await startTarget(target, { config, runDir, databaseUrl: databaseUrl(config) });
  } catch (error) {
    log(`${target} did not start: ${error instanceof Error ? error.message : String(error)}`);
    return chosen.map((scenario) => unmeasured(scenario, `not measured: ${target} did not start`));
  }
  log(`${target} ready at ${server.baseUrl} after ${server.readyAfterMs.toFixed(0)} ms`);
  const rows: Row[] = [];
  for (const scenario of chosen) {
    try {
      const job = { scenarioId: scenario.id, baseUrl: server.baseUrl, databaseUrl: databaseUrl(config) };
      const result = await runLoad(job, config);
      const errors = result.connectionErrors + result.unexpectedStatus;
      rows.push({
        ...rowBase(scenario),
        throughput: result.requestsPerSec,
        p50Ms: result.p50Ms,
        p99Ms: result.p99Ms,
        errors,
      });
      const statuses = JSON.stringify(result.statusCounts);
      log(
        `${scenario.label}: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50Ms} ms, ` +
          `p99 ${result.p99Ms} ms, errors ${errors}, statuses ${statuses}`,
      );
    } catch (error) {
      // The server's log holds the sandbox's generated secrets: name the file, do not echo it.
      log(`${scenario.label} failed: ${firstLine(error)} (server log: ${server.logPath})`);
      rows.push(unmeasured(scenario, `not measured: ${firstLine(error)}`));
    }
  }
  const stopped = await server.stop();
  if (!stopped.clean) notes.push(`${target} did not stop by itself within the grace period after SIGTERM`);
  return rows;
}

async function pgbenchRow(config: BenchConfig): Promise<{ row: Row; command: string | undefined }> {
  const label = `(d) pgbench TPC-B -c ${config.pgbenchClients} -j ${config.pgbenchThreads}`;
  const base = { id: 'pgbench', label, unit: 'tps' as const };
  try {
    const result = await runPgbench(config);
    log(`${label}: ${result.tps.toFixed(0)} tps, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`);
    const row = {
      ...base,
      throughput: result.tps,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      errors: result.failedTransactions,
    };
    return { row, command: result.command };
  } catch (error) {
    log(`pgbench failed: ${error instanceof Error ? error.message : String(error)}`);
    const row = { ...base, throughput: undefined, p50Ms: undefined, p99Ms: undefined, errors: undefined };
    return { row: { ...row, note: `not measured: ${firstLine(error)}` }, command: undefined };
  }
}

async function coldStart(config: BenchConfig, runDir: string): Promise<ColdStartResult | Error | undefined> {
  if (!selected(config, 'cold-start') || config.coldStartRuns === 0) return undefined;
  try {
    const result = await measureColdStart(config, runDir);
    log(`cold start to /readyz: ${result.readyAfterMs.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    return result;
  } catch (error) {
    log(`cold start failed: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** Bench runs stop by themselves: generous for the configured durations, never open-ended. */
function armWatchdog(config: BenchConfig): NodeJS.Timeout {
  const scenarioSeconds = (scenarios.length + 1) * (config.warmupS + config.durationS + 15);
  const limitS = scenarioSeconds + 300 + config.coldStartRuns * 60;
  const timer = setTimeout(() => {
    log(`watchdog: run exceeded ${limitS} s, stopping servers`);
    killAllServers();
    process.exit(2);
  }, limitS * 1000);
  timer.unref();
  return timer;
}

async function main(): Promise<number> {
  const config = loadBenchConfig();
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg()[0] ?? 0;
  const watchdog = armWatchdog(config);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAllServers();
      process.exit(130);
    });
  }
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-bench-'));
  log(`scratch dir ${runDir}; database ${config.databaseName}`);
  await recreateBenchDatabase(config);

  const notes: string[] = [];
  const measured: Row[] = [];
  for (const target of MEASUREMENT_ORDER) measured.push(...(await runTarget(target, config, runDir, notes)));
  let pgbenchCommand: string | undefined;
  if (selected(config, 'pgbench')) {
    const { row, command } = await pgbenchRow(config);
    measured.push(row);
    pgbenchCommand = command;
  }
  const rows = inTableOrder(measured);
  const busiest = Math.max(loadAverageAtStart, os.loadavg()[0] ?? 0);
  if (busiest > os.availableParallelism() / 2) {
    notes.push(
      `other work was running (1-minute load average up to ${busiest.toFixed(1)} on ` +
        `${os.availableParallelism()} CPUs): the ratios and the cold start are less trustworthy than on a quiet machine`,
    );
  }
  const coldStartResult = await coldStart(config, runDir);
  if (coldStartResult instanceof Error) notes.push(`cold start not measured: ${firstLine(coldStartResult)}`);
  else if (coldStartResult && coldStartResult.uncleanStops > 0) {
    notes.push(`cold start: ${coldStartResult.uncleanStops} stop(s) needed SIGKILL after SIGTERM`);
  }

  const figures = checkFigures({
    rows,
    coldStart: coldStartResult,
    coldStartLimitMs: config.coldStartLimitMs,
  });
  const section = renderRun({
    startedAt,
    elapsedS: (Date.now() - startedAt.getTime()) / 1000,
    command: invokingCommand(),
    config,
    machine: await machineFacts(config, loadAverageAtStart),
    pgbenchCommand,
    rows,
    figures,
    notes,
  });
  const resultsPath = path.resolve(repoRoot, config.resultsPath);
  await prependRun(resultsPath, section, config.keptRuns);
  process.stdout.write(`\n${section}\n`);
  log(`wrote ${path.relative(repoRoot, resultsPath)}`);
  clearTimeout(watchdog);

  const complete = rows.every((row) => row.throughput !== undefined) && !(coldStartResult instanceof Error);
  if (complete) await rm(runDir, { recursive: true, force: true });
  else log(`logs kept in ${runDir}`);
  return complete && figures.every((figure) => figure.pass) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    killAllServers();
    process.exit(1);
  },
);
