/**
 * `npm run bench`: baselines (a)–(c) and Rampart's scenarios in alternating rounds (plan.ts; (d)
 * pgbench among them when a figure compares with it, else once afterwards), the fixed-rate latency
 * runs, then the cold start. Writes RESULTS.md and exits non-zero
 * when a figure fails or a measurement could not be taken.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { scenarios } from '../scenarios/scenarios.ts';
import { type ColdStartResult, measureColdStart } from './cold-start.ts';
import { type BenchConfig, loadBenchConfig, selected } from './config.ts';
import { lockBenchDatabase, recreateBenchDatabase } from './database.ts';
import { checkFigures } from './figure-checks.ts';
import type { Row } from './figures.ts';
import { measureHttp, pgbenchLabel } from './http-part.ts';
import { firstLine, log } from './log.ts';
import { invokingCommand, machineFacts } from './machine.ts';
import { runPgbench } from './pgbench.ts';
import { buildPlan, measurementCount, type Plan } from './plan.ts';
import { prependRun, renderRun } from './report.ts';
import { killAllServers, repoRoot } from './server-process.ts';

const exec = promisify(execFile);

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

async function pgbenchRow(config: BenchConfig): Promise<{ row: Row; command: string | undefined }> {
  const label = pgbenchLabel(config);
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
function armWatchdog(config: BenchConfig, plan: Plan): NodeJS.Timeout {
  const httpSeconds = measurementCount(plan, config) * (2 * config.warmupS + config.durationS + 10);
  const fixtureSeconds = plan.scenarios.reduce((sum, scenario) => sum + (scenario.fixtureTimeoutS ?? 0), 0);
  const limitS = httpSeconds + fixtureSeconds + 300 + config.coldStartRuns * 60;
  const timer = setTimeout(() => {
    log(`watchdog: run exceeded ${limitS} s, stopping servers`);
    killAllServers();
    process.exit(2);
  }, limitS * 1000);
  timer.unref();
  return timer;
}

/** Other heavy work on the box (a test run, another bench) skews every number: look for it. */
async function otherWork(): Promise<string[]> {
  try {
    const { stdout } = await exec('pgrep', ['-af', 'vitest|bench/harness/run.ts']);
    return stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .filter((line) => ![process.pid, process.ppid].includes(Number(line.split(' ')[0])))
      .map((line) => line.split(' ').slice(1).join(' ').slice(0, 80))
      .filter((command) => !command.startsWith('sh -c') && !command.startsWith('npm exec'));
  } catch {
    return [];
  }
}

async function main(): Promise<number> {
  const config = loadBenchConfig();
  const plan = buildPlan(config);
  const lock = await lockBenchDatabase(config, () =>
    log(`another bench run is using database ${config.databaseName}: waiting for it to finish`),
  );
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg()[0] ?? 0;
  const watchdog = armWatchdog(config, plan);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAllServers();
      process.exit(130);
    });
  }
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-bench-'));
  log(`scratch dir ${runDir}; database ${config.databaseName}`);
  log(
    `${plan.groups.length} groups, ${measurementCount(plan, config)} measurements of ` +
      `${config.warmupS}(+) s warm-up + ${config.durationS} s; load average ${loadAverageAtStart.toFixed(2)}`,
  );
  await recreateBenchDatabase(config);

  const notes: string[] = [];
  const others = new Set(await otherWork());
  const http = await measureHttp(plan, config, runDir, notes);
  for (const line of await otherWork()) others.add(line);
  const measured: Row[] = [...http.rows];
  let pgbenchCommand = http.pgbenchCommand;
  if (selected(config, 'pgbench') && !plan.pgbenchInRounds) {
    const { row, command } = await pgbenchRow(config);
    measured.push(row);
    pgbenchCommand = command;
  }
  const rows = inTableOrder(measured);
  if (loadAverageAtStart > os.availableParallelism() / 2) {
    notes.push(
      `other work was running (1-minute load average ${loadAverageAtStart.toFixed(1)} at the start on ` +
        `${os.availableParallelism()} CPUs): the numbers are less trustworthy than on a quiet machine`,
    );
  }
  if (others.size > 0) notes.push(`seen running during the HTTP part: ${[...others].join('; ')}`);
  const coldStartResult = await coldStart(config, runDir);
  if (coldStartResult instanceof Error) notes.push(`cold start not measured: ${firstLine(coldStartResult)}`);
  else if (coldStartResult && coldStartResult.uncleanStops > 0) {
    notes.push(`cold start: ${coldStartResult.uncleanStops} stop(s) needed SIGKILL after SIGTERM`);
  }

  const figures = checkFigures({
    rows,
    ratios: http.ratios,
    latency: http.latency,
    pairedLatency: http.pairedLatency,
    coldStart: coldStartResult,
  });
  const section = renderRun({
    startedAt,
    elapsedS: (Date.now() - startedAt.getTime()) / 1000,
    command: invokingCommand(),
    config,
    machine: await machineFacts(config, loadAverageAtStart),
    pgbenchCommand,
    rows,
    ratios: http.ratios,
    figures,
    notes,
  });
  const resultsPath = path.resolve(repoRoot, config.resultsPath);
  await prependRun(resultsPath, section, config.keptRuns);
  process.stdout.write(`\n${section}\n`);
  log(`wrote ${path.relative(repoRoot, resultsPath)}`);
  clearTimeout(watchdog);
  await lock.release();

  const complete =
    rows.every((row) => row.throughput !== undefined && !row.note) && !(coldStartResult instanceof Error);
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
