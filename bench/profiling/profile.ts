/**
 * CPU profile of a server under one scenario's full load, to find where a failing figure's time goes:
 *   node --import tsx bench/profiling/profile.ts <scenario-id> [seconds]
 * Starts the scenario's target (Rampart or the baseline server) alone under `node --cpu-prof` on its
 * own database (`rampart_profile`, or BENCH_DB_NAME), makes the scenario's fixtures, warms up, loads
 * it for `seconds` (default 10) with the bench's load generator and stops the server. Prints, for
 * the loaded window only (startup and fixtures left out): CPU per process (server, PostgreSQL,
 * load generator) per request, then where the server's main-thread samples fell: self time by
 * function, inclusive time by function and by module. The .cpuprofile is kept (path printed) for
 * Chrome DevTools or speedscope.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { databaseUrl, loadBenchConfig } from '../harness/config.ts';
import { recreateBenchDatabase, withDatabase } from '../harness/database.ts';
import { LoadGenerator } from '../harness/load.ts';
import { startServer } from '../harness/server-process.ts';
import { BENCH_OPERATOR_TOKEN, targetSpec } from '../harness/targets.ts';
import { findScenario } from '../scenarios/scenarios.ts';
import { cpuSnapshot, cpuUsage } from './cpu-usage.ts';
import { type CallFrame, frameName, moduleOf, top } from './profile-frames.ts';

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function writeCpuPerRequest(
  before: Awaited<ReturnType<typeof cpuSnapshot>>,
  after: Awaited<ReturnType<typeof cpuSnapshot>>,
  groups: Map<number, string>,
  requestsPerSec: number,
): void {
  const perRequestMs = (cores: number) => (cores * 1000) / requestsPerSec;
  const lines = cpuUsage(before, after, groups).map((line) => {
    const cores = /^([\d.]+) cores/.exec(line)?.[1];
    return cores ? `${line}  (${perRequestMs(Number(cores)).toFixed(3)} ms CPU per request)` : line;
  });
  process.stdout.write(`\nCPU during the loaded window:\n${lines.join('\n')}\n\n`);
}

/**
 * Frames of our code: src/ under tsx, or the bundle npm start and the bench run (dist/ holds only
 * our code: build.mjs leaves every dependency external, so they show by package name).
 */
function ownFunctions(counts: Map<string, number>): Map<string, number> {
  return new Map([...counts].filter(([name]) => / (src|dist)\//.test(name)));
}

function summarise(profile: CpuProfile, fromUs: number, toUs: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const modules = new Map<string, number>();
  let at = profile.startTime;
  let inWindow = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if (at < fromUs || at > toUs) return;
    inWindow += 1;
    const leaf = byId.get(id);
    if (!leaf) return;
    if (leaf.callFrame.functionName === '(idle)') {
      idle += 1;
      return;
    }
    const name = frameName(leaf.callFrame);
    self.set(name, (self.get(name) ?? 0) + 1);
    const seenNames = new Set<string>();
    const seenModules = new Set<string>();
    for (let node: ProfileNode | undefined = leaf; node; node = byId.get(parent.get(node.id) ?? -1)) {
      seenNames.add(frameName(node.callFrame));
      if (node.callFrame.url) seenModules.add(moduleOf(node.callFrame.url));
    }
    for (const seen of seenNames) inclusive.set(seen, (inclusive.get(seen) ?? 0) + 1);
    // Modules inclusive too: "time spent inside pg, including what it calls".
    for (const seen of seenModules) modules.set(seen, (modules.get(seen) ?? 0) + 1);
  });
  const busy = inWindow - idle;
  return [
    `samples in the loaded window: ${inWindow}; busy ${busy} (${((busy / Math.max(1, inWindow)) * 100).toFixed(0)}% of the main thread); shares below are of busy samples`,
    '',
    'self time, top 30:',
    ...top(self, busy, 30),
    '',
    'inclusive time by function, top 45:',
    ...top(inclusive, busy, 45),
    '',
    "inclusive time by the project's own functions (src/ or dist/), ≥ 0.3%:",
    ...top(ownFunctions(inclusive), busy, 60).filter((line) => Number.parseFloat(line) >= 0.3),
    '',
    'inclusive time by module, top 30:',
    ...top(modules, busy, 30),
  ].join('\n');
}

async function main(): Promise<void> {
  const scenarioId = process.argv[2];
  const seconds = Number(process.argv[3] ?? 10);
  if (!scenarioId || !Number.isFinite(seconds) || seconds <= 0) {
    throw new Error('usage: node --import tsx bench/profiling/profile.ts <scenario-id> [seconds]');
  }
  const scenario = findScenario(scenarioId);
  const config = loadBenchConfig({ BENCH_DB_NAME: 'rampart_profile', ...process.env });
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-profile-'));
  const profileDir = path.join(runDir, 'cpuprofile');
  await recreateBenchDatabase(config);
  // What-if experiments on the database side, e.g. PROFILE_PG_SET=synchronous_commit=off.
  for (const setting of (process.env.PROFILE_PG_SET ?? '').split(',').filter(Boolean)) {
    const [name = '', value = ''] = setting.split('=');
    if (!/^[a-z_]+$/.test(name) || !/^[\w.]+$/.test(value))
      throw new Error(`PROFILE_PG_SET: bad "${setting}"`);
    await withDatabase(config, (client) =>
      client.query(`ALTER DATABASE ${config.databaseName} SET ${name} = '${value}'`),
    );
    process.stdout.write(`database setting for this profile: ${name} = ${value}\n`);
  }
  const spec = await targetSpec(scenario.target, { config, runDir, databaseUrl: databaseUrl(config) });
  // PROFILE_PERF=1: Linux perf instead of V8's profiler (see perfRecord).
  const usePerf = process.env.PROFILE_PERF === '1';
  // PROFILE_NODE_ARGS: extra node options for the server only, e.g. a V8 flag under trial.
  const extraArgs = (process.env.PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // PROFILE_RATE=<req/s>: open-loop fixed-rate load (as the latency figures send) instead of
  // closed-loop full load, to look at a tail (e.g. with PROFILE_NODE_ARGS=--trace-gc); no profiler
  // unless PROFILE_PERF=1, as one adds tail latency of its own.
  const rate = Number(process.env.PROFILE_RATE ?? 0);
  const profilerArgs = usePerf
    ? ['--perf-basic-prof-only-functions']
    : rate > 0
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const nodeArgs = [...(spec.nodeArgs ?? []), ...extraArgs, ...profilerArgs];
  const server = await startServer({ ...spec, nodeArgs });
  const generator = new LoadGenerator();
  let window: [number, number];
  try {
    await generator.prepare(
      scenarioId,
      server.baseUrl,
      databaseUrl(config),
      BENCH_OPERATOR_TOKEN,
      scenario.fixtureTimeoutS ?? 0,
    );
    await generator.measure(scenarioId, 3, 1);
    const groups = new Map<number, string>();
    if (server.pid) groups.set(server.pid, `${scenario.target} server (node)`);
    if (generator.pid) groups.set(generator.pid, 'load generator (node)');
    const before = await cpuSnapshot();
    // V8's profile timestamps and process.hrtime are both CLOCK_MONOTONIC microseconds.
    const from = Number(process.hrtime.bigint() / 1000n);
    const perf = usePerf && server.pid ? perfRecord(server.pid, seconds, runDir) : undefined;
    if (rate > 0) {
      const paced = await generator.paced(scenarioId, rate, 1, seconds);
      if (perf) await perf;
      const ms = (value: number) => `${value.toFixed(2)} ms`;
      process.stdout.write(
        `${scenarioId} open loop at ${rate} req/s (sent ${paced.achievedRate.toFixed(0)}): p50 ${ms(paced.p50Ms)}, ` +
          `p99 ${ms(paced.p99Ms)}, max ${ms(paced.maxMs)}, sender's worst lag ${ms(paced.maxLagMs)}, ` +
          `unexpected statuses ${paced.unexpectedStatus}, errors ${paced.errors}\nserver log: ${spec.logPath}\n` +
          (perf ? `perf data: ${path.join(runDir, 'perf.data')}\n` : ''),
      );
      // At a fixed rate below saturation, CPU per request is the request's own cost, without the
      // contention a saturated closed loop adds: the measure to compare two trees by.
      writeCpuPerRequest(before, await cpuSnapshot(), groups, paced.achievedRate);
      return;
    }
    const result = await generator.measure(scenarioId, 0, seconds);
    if (perf) await perf;
    window = [from, Number(process.hrtime.bigint() / 1000n)];
    const after = await cpuSnapshot();
    process.stdout.write(
      `${scenarioId} under --cpu-prof: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50Ms} ms, ` +
        `p99 ${result.p99Ms} ms, statuses ${JSON.stringify(result.statusCounts)}\n`,
    );
    writeCpuPerRequest(before, after, groups, result.requestsPerSec);
  } finally {
    generator.stop();
    await server.stop();
  }
  if (usePerf) {
    process.stdout.write(`perf data: ${path.join(runDir, 'perf.data')} (perf report -i … --no-children)\n`);
    return;
  }
  // One file per thread; the main thread's is `CPU.<date>.<pid>.0.<seq>.cpuprofile`.
  const files = (await readdir(profileDir)).filter((name) => name.endsWith('.cpuprofile'));
  const file = files.find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name)) ?? files[0];
  if (!file) throw new Error(`no .cpuprofile in ${profileDir}`);
  const profile = JSON.parse(await readFile(path.join(profileDir, file), 'utf8')) as CpuProfile;
  process.stdout.write(
    `${summarise(profile, window[0], window[1])}\n\nprofile: ${path.join(profileDir, file)}\n`,
  );
}

/**
 * V8's sampling profiler charged `writev` with a third to a half of the main thread's samples in
 * every profile; perf over the same load put all kernel time at about 10%, and the rest in V8
 * itself (interpreter, ICs, compiler). perf sees native and kernel frames as they are; JS frames
 * are named through the map --perf-basic-prof-only-functions writes.
 */
function perfRecord(pid: number, seconds: number, runDir: string): Promise<void> {
  const out = path.join(runDir, 'perf.data');
  const perf = spawn(
    'perf',
    ['record', '-F', '499', '-g', '-p', String(pid), '-o', out, '--', 'sleep', String(seconds)],
    {
      stdio: 'ignore',
    },
  );
  return new Promise((resolve) => perf.on('exit', () => resolve()));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
