/**
 * The measured part of a run: every group of plan.ts in alternating rounds (HTTP scenarios through
 * the load generator, (d) through pgbench when a figure compares with it), then the fixed-rate
 * latency runs. Servers run for the whole part, each in its own process, neither pinned to a CPU,
 * all on 127.0.0.1 ports picked the same way; one load generator process drives every request.
 */

import { findScenario } from '../scenarios/scenarios.ts';
import { type BenchConfig, databaseUrl } from './config.ts';
import { checkpoint, dropDatabase, recreateDatabase, waitForDueJobs } from './database.ts';
import { type Row, ratioKey } from './figures.ts';
import { type LatencyMeasurements, measureLatency, measurePairedLatency } from './latency.ts';
import { LoadGenerator, type LoadResult } from './load.ts';
import { firstLine, log } from './log.ts';
import { initPgbench, type PgbenchResult, pgbenchLoad } from './pgbench.ts';
import { type Group, groupRounds, PGBENCH, type Plan, roundOrder } from './plan.ts';
import type { TargetName } from './scenario.ts';
import type { RunningServer } from './server-process.ts';
import { median } from './stats.ts';
import { BENCH_OPERATOR_TOKEN, startTarget, targetDatabaseName, targetDatabaseUrl } from './targets.ts';

export interface HttpMeasurements extends LatencyMeasurements {
  rows: Row[];
  ratios: Map<string, number[]>;
  /** How (d) was run, when it was measured in rounds. */
  pgbenchCommand?: string;
}

/** Work left behind by a drainJobs scenario gets this long to finish before the next measurement. */
const DRAIN_MAX_MS = 20_000;

export function pgbenchLabel(config: BenchConfig): string {
  return `(d) pgbench TPC-B -c ${config.pgbenchClients} -j ${config.pgbenchThreads}`;
}

type RowBase = Pick<Row, 'id' | 'label' | 'unit' | 'comparedWith'>;

export function rowOf(base: RowBase, samples: readonly LoadResult[], note: string | undefined): Row {
  const rates = samples.map((sample) => sample.requestsPerSec);
  const row: Row = {
    ...base,
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

/** A pgbench load in the shape of an HTTP measurement: transactions count as requests, failures as errors. */
function pgbenchSample(result: PgbenchResult, durationS: number): LoadResult {
  return {
    requestsPerSec: result.tps,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    totalRequests: result.transactions,
    connectionErrors: result.failedTransactions,
    timeouts: 0,
    unexpectedStatus: 0,
    statusCounts: {},
    durationS,
  };
}

/** Every target the plan loads, each on its database; ledger-sized targets get theirs made afresh. */
async function startTargets(
  plan: Plan,
  config: BenchConfig,
  runDir: string,
  problem: (id: string, text: string) => void,
): Promise<Map<TargetName, RunningServer>> {
  // The baseline first: it creates and fills bench_kv before Rampart's migrations and workers start.
  const targets = [...new Set(plan.scenarios.map((scenario) => scenario.target))].sort((left) =>
    left === 'baseline' ? -1 : 1,
  );
  const servers = new Map<TargetName, RunningServer>();
  for (const target of targets) {
    try {
      const database = targetDatabaseName(target, config);
      if (database !== config.databaseName) await recreateDatabase(config, database);
      const url = targetDatabaseUrl(target, config);
      const server = await startTarget(target, { config, runDir, databaseUrl: url });
      servers.set(target, server);
      log(
        `${target} ready at ${server.baseUrl} (database ${database}) after ${server.readyAfterMs.toFixed(0)} ms`,
      );
    } catch (error) {
      log(`${target} did not start: ${firstLine(error)}`);
      for (const scenario of plan.scenarios.filter((candidate) => candidate.target === target)) {
        problem(scenario.id, `not measured: ${target} did not start`);
      }
    }
  }
  return servers;
}

async function stopTargets(servers: Map<TargetName, RunningServer>, config: BenchConfig, notes: string[]) {
  for (const [target, server] of servers) {
    const stopped = await server.stop();
    if (!stopped.clean) notes.push(`${target} did not stop by itself within the grace period after SIGTERM`);
    // The ledger-sized databases are big and made afresh by every run: give the disk back.
    const database = targetDatabaseName(target, config);
    if (database !== config.databaseName) await dropDatabase(config, database).catch(() => undefined);
  }
}

export async function measureHttp(
  plan: Plan,
  config: BenchConfig,
  runDir: string,
  notes: string[],
): Promise<HttpMeasurements> {
  const result: HttpMeasurements = {
    rows: [],
    ratios: new Map(),
    latency: new Map(),
    pairedLatency: new Map(),
  };
  if (plan.scenarios.length === 0) return result;
  const ids = [...plan.scenarios.map((scenario) => scenario.id), ...(plan.pgbenchInRounds ? [PGBENCH] : [])];
  const samples = new Map<string, LoadResult[]>(ids.map((id) => [id, []]));
  const problems = new Map<string, string>();
  const problem = (id: string, text: string) => {
    if (!problems.has(id)) problems.set(id, text);
  };
  const ready = (id: string) => !problems.has(id);

  if (plan.pgbenchInRounds) {
    try {
      // Before any server starts, and flushed, so the data load's writes land in no measurement.
      await initPgbench(config);
      await checkpoint(databaseUrl(config));
    } catch (error) {
      log(`pgbench init failed: ${firstLine(error)}`);
      problem(PGBENCH, `not measured: ${firstLine(error)}`);
    }
  }
  const servers = await startTargets(plan, config, runDir, problem);
  const generator = new LoadGenerator();
  try {
    const prepared = new Set<string>();
    /** Fixtures just before a scenario's group: reservations and seeded data are fresh when loaded. */
    const prepare = async (id: string) => {
      if (id === PGBENCH || prepared.has(id) || !ready(id)) return;
      prepared.add(id);
      const scenario = findScenario(id);
      const server = servers.get(scenario.target);
      if (!server) return;
      const startedAt = performance.now();
      try {
        const url = targetDatabaseUrl(scenario.target, config);
        await generator.prepare(id, server.baseUrl, url, BENCH_OPERATOR_TOKEN, scenario.fixtureTimeoutS ?? 0);
        const seconds = (performance.now() - startedAt) / 1000;
        if (seconds > 2) log(`${id}: fixtures made in ${seconds.toFixed(1)} s`);
      } catch (error) {
        // The server's log holds the sandbox's generated secrets: name the file, do not echo it.
        log(`${scenario.label}: fixtures failed: ${firstLine(error)} (server log: ${server.logPath})`);
        problem(id, `not measured: ${firstLine(error)}`);
      }
    };

    const warmed = new Set<string>();
    const measure = async (id: string): Promise<LoadResult> => {
      // A first measurement warms up longer: JIT, pool, caches.
      const warmupS = warmed.has(id) ? config.warmupS : config.warmupS * 2;
      if (id === PGBENCH) {
        if (warmupS > 0) await pgbenchLoad(config, warmupS);
        const run = await pgbenchLoad(config);
        result.pgbenchCommand = run.command;
        warmed.add(id);
        return pgbenchSample(run, config.durationS);
      }
      const sample = await generator.measure(id, warmupS, config.durationS);
      warmed.add(id);
      const scenario = findScenario(id);
      if (scenario.drainJobs) {
        const drained = await waitForDueJobs(targetDatabaseUrl(scenario.target, config), DRAIN_MAX_MS);
        if (drained.waitedMs > 1000 || drained.left > 0) {
          log(
            `${id}: waited ${(drained.waitedMs / 1000).toFixed(1)} s for its jobs, ${drained.left} still due`,
          );
        }
      }
      return sample;
    };

    for (const group of plan.groups) {
      const rounds = groupRounds(group, config);
      if (rounds < config.rounds) {
        notes.push(
          `${group.reference} group: ${rounds} rounds, as its closed-loop numbers only set a fixed rate`,
        );
      }
      for (const id of [group.reference, ...group.members]) await prepare(id);
      await measureGroup(group, config, measure, ready, problem, samples, result.ratios);
    }

    result.rows = plan.scenarios.map((scenario) =>
      rowOf(
        { id: scenario.id, label: scenario.label, unit: 'req/s', comparedWith: scenario.comparedWith },
        samples.get(scenario.id) ?? [],
        problems.get(scenario.id),
      ),
    );
    if (plan.pgbenchInRounds) {
      const base = { id: PGBENCH, label: pgbenchLabel(config), unit: 'tps' as const };
      result.rows.push(rowOf(base, samples.get(PGBENCH) ?? [], problems.get(PGBENCH)));
    }
    await measureLatency(plan, config, generator, result, ready, notes);
    await measurePairedLatency(plan, config, generator, result, ready);
  } finally {
    generator.stop();
    await stopTargets(servers, config, notes);
  }
  return result;
}

/** `rounds` rounds of the group, each member once per round; per-round ratios to the reference. */
async function measureGroup(
  group: Group,
  config: BenchConfig,
  measure: (id: string) => Promise<LoadResult>,
  ready: (id: string) => boolean,
  problem: (id: string, text: string) => void,
  samples: Map<string, LoadResult[]>,
  ratios: Map<string, number[]>,
) {
  const rounds = groupRounds(group, config);
  for (let round = 0; round < rounds; round += 1) {
    const thisRound = new Map<string, number>();
    for (const id of roundOrder(group, round).filter(ready)) {
      try {
        const sample = await measure(id);
        samples.get(id)?.push(sample);
        thisRound.set(id, sample.requestsPerSec);
        const errors = sample.connectionErrors + sample.timeouts + sample.unexpectedStatus;
        const unit = id === PGBENCH ? 'tps' : 'req/s';
        log(
          `${group.reference} round ${round + 1}/${rounds} ${id}: ` +
            `${sample.requestsPerSec.toFixed(0)} ${unit}, p50 ${sample.p50Ms} ms, p99 ${sample.p99Ms} ms` +
            (errors > 0 ? `, errors ${errors}, statuses ${JSON.stringify(sample.statusCounts)}` : ''),
        );
        if (sample.unexpectedStatus > 0) {
          problem(id, `answers with another status: ${JSON.stringify(sample.statusCounts)}`);
        }
      } catch (error) {
        log(`${id} failed: ${firstLine(error)}`);
        problem(id, `not measured: ${firstLine(error)}`);
      }
    }
    const reference = thisRound.get(group.reference);
    for (const member of group.members) {
      const value = thisRound.get(member);
      if (value === undefined || !reference) continue;
      const key = ratioKey(member, group.reference);
      ratios.set(key, [...(ratios.get(key) ?? []), value / reference]);
    }
  }
}
