/**
 * `npm run bench`: baselines (a)–(c) and Rampart's scenarios in alternating rounds (plan.ts), the
 * fixed-rate latency runs, pgbench (d), then the cold start. Writes RESULTS.md and exits non-zero
 * when a figure fails or a measurement could not be taken.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type ColdStartResult, measureColdStart } from './cold-start.ts';
import { type BenchConfig, databaseUrl, loadBenchConfig, selected } from './config.ts';
import { lockBenchDatabase, recreateBenchDatabase } from './database.ts';
import { checkFigures, type LatencyRun, latencyKey, type Row, ratioKey } from './figures.ts';
import { LoadGenerator, type LoadResult, type PacedResult } from './load.ts';
import { invokingCommand, machineFacts } from './machine.ts';
import { runPgbench } from './pgbench.ts';
import { buildPlan, measurementCount, type Plan, roundOrder } from './plan.ts';
import { prependRun, renderRun } from './report.ts';
import { findScenario, type HttpScenario, scenarios, type TargetName } from './scenarios.ts';
import { killAllServers, type RunningServer, repoRoot } from './server-process.ts';
import { median } from './stats.ts';
import { BENCH_OPERATOR_TOKEN, startTarget } from './targets.ts';

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

function log(line: string): void {
  process.stdout.write(`[bench] ${line}\n`);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error';
}

function rowBase(scenario: HttpScenario): Pick<Row, 'id' | 'label' | 'unit' | 'comparedWith'> {
  return { id: scenario.id, label: scenario.label, unit: 'req/s', comparedWith: scenario.comparedWith };
}

function rowOf(scenario: HttpScenario, samples: readonly LoadResult[], note: string | undefined): Row {
  const rates = samples.map((sample) => sample.requestsPerSec);
  const row: Row = {
    ...rowBase(scenario),
    throughput: samples.length > 0 ? median(rates) : undefined,
    p50Ms: samples.length > 0 ? median(samples.map((sample) => sample.p50Ms)) : undefined,
    p99Ms: samples.length > 0 ? median(samples.map((sample) => sample.p99Ms)) : undefined,
    errors:
      samples.length > 0
        ? samples.reduce(
            (sum, sample) => sum + sample.connectionErrors + sample.timeouts + sample.unexpectedStatus,
            0,
          )
        : undefined,
    rounds: samples.length,
  };
  if (samples.length > 0) row.throughputRange = [Math.min(...rates), Math.max(...rates)];
  if (note) row.note = note;
  return row;
}

interface HttpMeasurements {
  rows: Row[];
  ratios: Map<string, number[]>;
  latency: Map<string, LatencyRun>;
}

/**
 * Both servers run for the whole HTTP part, each in its own process, neither pinned to a CPU, both
 * on 127.0.0.1 ports picked the same way; one load generator process drives every measurement.
 */
async function measureHttp(plan: Plan, config: BenchConfig, runDir: string, notes: string[]) {
  const result: HttpMeasurements = { rows: [], ratios: new Map(), latency: new Map() };
  if (plan.scenarios.length === 0) return result;
  const samples = new Map<string, LoadResult[]>(plan.scenarios.map((scenario) => [scenario.id, []]));
  const problems = new Map<string, string>();
  const problem = (id: string, text: string) => {
    if (!problems.has(id)) problems.set(id, text);
  };

  // The baseline first: it creates and fills bench_kv before Rampart's migrations and workers start.
  const targets = [...new Set(plan.scenarios.map((scenario) => scenario.target))].sort((left) =>
    left === 'baseline' ? -1 : 1,
  );
  const servers = new Map<TargetName, RunningServer>();
  for (const target of targets) {
    try {
      const server = await startTarget(target, { config, runDir, databaseUrl: databaseUrl(config) });
      servers.set(target, server);
      log(`${target} ready at ${server.baseUrl} after ${server.readyAfterMs.toFixed(0)} ms`);
    } catch (error) {
      log(`${target} did not start: ${firstLine(error)}`);
      for (const scenario of plan.scenarios.filter((candidate) => candidate.target === target)) {
        problem(scenario.id, `not measured: ${target} did not start`);
      }
    }
  }

  const generator = new LoadGenerator();
  try {
    for (const scenario of plan.scenarios) {
      const server = servers.get(scenario.target);
      if (!server) continue;
      try {
        await generator.prepare(scenario.id, server.baseUrl, databaseUrl(config), BENCH_OPERATOR_TOKEN);
      } catch (error) {
        // The server's log holds the sandbox's generated secrets: name the file, do not echo it.
        log(`${scenario.label}: fixtures failed: ${firstLine(error)} (server log: ${server.logPath})`);
        problem(scenario.id, `not measured: ${firstLine(error)}`);
      }
    }
    const ready = (id: string) => !problems.has(id);
    const warmed = new Set<string>();

    for (const group of plan.groups) {
      for (let round = 0; round < config.rounds; round += 1) {
        const thisRound = new Map<string, number>();
        for (const id of roundOrder(group, round).filter(ready)) {
          const scenario = findScenario(id);
          // A scenario's first measurement warms up longer: JIT, pool, caches.
          const warmupS = warmed.has(id) ? config.warmupS : config.warmupS * 2;
          try {
            const sample = await generator.measure(id, warmupS, config.durationS);
            warmed.add(id);
            samples.get(id)?.push(sample);
            thisRound.set(id, sample.requestsPerSec);
            const errors = sample.connectionErrors + sample.timeouts + sample.unexpectedStatus;
            log(
              `${group.reference} round ${round + 1}/${config.rounds} ${scenario.id}: ` +
                `${sample.requestsPerSec.toFixed(0)} req/s, p50 ${sample.p50Ms} ms, p99 ${sample.p99Ms} ms` +
                (errors > 0 ? `, errors ${errors}, statuses ${JSON.stringify(sample.statusCounts)}` : ''),
            );
            if (sample.unexpectedStatus > 0) {
              problem(id, `answers with another status: ${JSON.stringify(sample.statusCounts)}`);
            }
          } catch (error) {
            log(`${scenario.label} failed: ${firstLine(error)}`);
            problem(id, `not measured: ${firstLine(error)}`);
          }
        }
        const reference = thisRound.get(group.reference);
        for (const member of group.members) {
          const value = thisRound.get(member);
          if (value === undefined || !reference) continue;
          const key = ratioKey(member, group.reference);
          result.ratios.set(key, [...(result.ratios.get(key) ?? []), value / reference]);
        }
      }
    }

    result.rows = plan.scenarios.map((scenario) =>
      rowOf(scenario, samples.get(scenario.id) ?? [], problems.get(scenario.id)),
    );
    await measureLatency(plan, config, generator, result, ready, notes);
  } finally {
    generator.stop();
    for (const [target, server] of servers) {
      const stopped = await server.stop();
      if (!stopped.clean)
        notes.push(`${target} did not stop by itself within the grace period after SIGTERM`);
    }
  }
  return result;
}

/**
 * Fixed-rate runs at a share of each scenario's median req/s, alternating scenarios per round. Each
 * is paired with a control: the scenario's `comparedWith` at the same rate in the same round, so a
 * tail that comes from the machine (other work, the sender itself) shows in both.
 */
async function measureLatency(
  plan: Plan,
  config: BenchConfig,
  generator: LoadGenerator,
  into: HttpMeasurements,
  usable: (id: string) => boolean,
  notes: string[],
) {
  const runs = plan.latencyFigures.flatMap((figure) => {
    const row = into.rows.find((candidate) => candidate.id === figure.scenario);
    const key = latencyKey(figure.scenario, figure.loadShare);
    if (!row?.throughput || row.note?.startsWith('not measured')) {
      into.latency.set(key, { rate: 0, rounds: [], error: 'no throughput to take a share of' });
      return [];
    }
    const run = {
      rate: Math.max(1, Math.round(row.throughput * figure.loadShare)),
      rounds: [] as PacedResult[],
    };
    into.latency.set(key, run);
    const control = findScenario(figure.scenario).comparedWith;
    return [
      {
        figure,
        key,
        run,
        control: control && usable(control) ? control : undefined,
        controls: [] as number[],
      },
    ];
  });
  const pace = async (id: string, rate: number, round: number) => {
    const sample = await generator.paced(id, rate, config.warmupS, config.durationS);
    log(
      `latency round ${round + 1}/${config.latencyRounds} ${id} at ${rate} req/s: ` +
        `p50 ${sample.p50Ms.toFixed(2)} ms, p99 ${sample.p99Ms.toFixed(2)} ms, max ${sample.maxMs.toFixed(1)} ms, ` +
        `sent ${sample.achievedRate.toFixed(0)} req/s (worst lag ${sample.maxLagMs.toFixed(1)} ms), ` +
        `failed ${sample.errors + sample.unexpectedStatus}`,
    );
    return sample;
  };
  for (let round = 0; round < config.latencyRounds; round += 1) {
    const ordered = round % 2 === 0 ? runs : [...runs].reverse();
    for (const entry of ordered) {
      const { figure, key, run, control } = entry;
      const steps = [figure.scenario, ...(control ? [control] : [])];
      for (const id of round % 2 === 0 ? steps : steps.reverse()) {
        try {
          const sample = await pace(id, run.rate, round);
          if (id === figure.scenario) run.rounds.push(sample);
          else entry.controls.push(sample.p99Ms);
        } catch (error) {
          log(`latency ${id} failed: ${firstLine(error)}`);
          if (id === figure.scenario) into.latency.set(key, { ...run, error: firstLine(error) });
        }
      }
    }
  }
  for (const { figure, run, control, controls } of runs) {
    if (!control || controls.length === 0) continue;
    const label = findScenario(control).label;
    notes.push(
      `${figure.description}: control ${label} at the same ${run.rate} req/s in the same rounds had p99 ` +
        `${median(controls).toFixed(1)} ms (rounds: ${controls.map((value) => value.toFixed(1)).join(', ')} ms)`,
    );
  }
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
function armWatchdog(config: BenchConfig, plan: Plan): NodeJS.Timeout {
  const httpSeconds = measurementCount(plan, config) * (2 * config.warmupS + config.durationS + 10);
  const limitS = httpSeconds + 300 + config.coldStartRuns * 60;
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
    const { stdout } = await exec('pgrep', ['-af', 'vitest|bench/run.ts']);
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
  let pgbenchCommand: string | undefined;
  if (selected(config, 'pgbench')) {
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
