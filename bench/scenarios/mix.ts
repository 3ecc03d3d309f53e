/**
 * Issue 9's load scenario and soak, apart from `npm run bench`:
 *
 *   node --import tsx bench/scenarios/mix.ts        the mix against one server, then two servers on one database
 *   node --import tsx bench/scenarios/mix.ts soak   one server under the mix for BENCH_SOAK_S (600 for the
 *                                         figure "RSS flat within 10% over a 10-minute soak")
 *
 * Each run: a fresh database on the machine's PostgreSQL, Rampart server process(es) as the bench
 * starts them (targets.ts), a local callback receiver in this process, and the load from a second
 * process (mix-load.ts): closed-loop workers drawing weighted ops (rates, reserve, card order,
 * limits, user and account reads, transfers with notifyUrl, transfer reads) for warm-up + a fixed
 * time. Reports throughput, p50/p99 and errors per route, callbacks received and their lag, and
 * each server's RSS over the measured window (growth after warm-up). Writes BENCH_MIX_RESULTS.
 */
import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type CallbackReceiver, startCallbackReceiver } from '../harness/callback-receiver.ts';
import { type BenchConfig, loadBenchConfig, positiveInt } from '../harness/config.ts';
import { dropDatabase, lockBenchDatabase, recreateDatabase } from '../harness/database.ts';
import { log } from '../harness/log.ts';
import { invokingCommand } from '../harness/machine.ts';
import { markdownTable } from '../harness/report.ts';
import { type RssGrowth, type RssSample, rssGrowth, rssTimeline, sampleRss } from '../harness/rss.ts';
import { killAllServers, type RunningServer, repoRoot, startServer } from '../harness/server-process.ts';
import { percentile } from '../harness/stats.ts';
import { BENCH_MASTER_KEY, BENCH_OPERATOR_TOKEN, rampartSpec } from '../harness/targets.ts';
import type { MixCommand, MixResult } from './mix-load.ts';

interface MixSettings {
  durationS: number;
  warmupS: number;
  connections: number;
  users: number;
  soakS: number;
  /** A soak warms up longer: caches and JIT settle within the first minute, leaks do not. */
  soakWarmupS: number;
  resultsPath: string;
}

function mixSettings(env = process.env): MixSettings {
  return {
    durationS: positiveInt(env, 'BENCH_MIX_DURATION_S', 60, 24 * 3600),
    warmupS: positiveInt(env, 'BENCH_MIX_WARMUP_S', 15, 3600),
    connections: positiveInt(env, 'BENCH_MIX_CONNECTIONS', 32, 1000),
    users: positiveInt(env, 'BENCH_MIX_USERS', 50, 10_000),
    soakS: positiveInt(env, 'BENCH_SOAK_S', 120, 24 * 3600),
    soakWarmupS: positiveInt(env, 'BENCH_SOAK_WARMUP_S', 60, 3600),
    resultsPath: env.BENCH_MIX_RESULTS || 'bench/MIX-RESULTS.md',
  };
}

/** RSS may grow at most this much over a soak's measured window (issue 9). */
const SOAK_MAX_GROWTH = 0.1;
/** Callbacks still on their way when the load stops get this long to arrive. */
const CALLBACK_GRACE_MS = 20_000;

interface MixRun {
  servers: number;
  durationS: number;
  result: MixResult;
  callbacks: { expected: number; arrived: number; lagP50Ms: number; lagP99Ms: number; posts: number };
  memory: { rss: RssGrowth | undefined; timeline: string }[];
}

function runLoad(command: MixCommand): Promise<MixResult> {
  const child = fork(path.join(repoRoot, 'bench/scenarios/mix-load.ts'), [], {
    cwd: repoRoot,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const limitMs = (command.warmupS + command.durationS + 180) * 1000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mix load took over ${limitMs / 1000} s`));
    }, limitMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      const reply = message as { ok: true; value: MixResult } | { ok: false; message: string };
      child.disconnect();
      if (reply.ok) resolve(reply.value);
      else reject(new Error(reply.message));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mix load exited (${code})`));
    });
    child.send(command);
  });
}

async function waitForCallbacks(receiver: CallbackReceiver, transfers: readonly [string, number][]) {
  const deadline = Date.now() + CALLBACK_GRACE_MS;
  while (Date.now() < deadline && transfers.some(([id]) => !receiver.arrivals.has(id))) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const lags = transfers
    .map(([id, answeredAt]) => (receiver.arrivals.get(id) ?? Number.NaN) - answeredAt)
    .filter((lag) => !Number.isNaN(lag))
    .sort((left, right) => left - right);
  return {
    expected: transfers.length,
    arrived: lags.length,
    lagP50Ms: percentile(lags, 50),
    lagP99Ms: percentile(lags, 99),
    posts: receiver.received(),
  };
}

async function runMix(
  config: BenchConfig,
  settings: MixSettings,
  serverCount: number,
  durationS: number,
): Promise<MixRun> {
  const database = `${config.databaseName}_mix`;
  const databaseUrl = `${config.pgServerUrl}/${database}`;
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-mix-'));
  await recreateDatabase(config, database);
  const receiver = await startCallbackReceiver();
  const servers: RunningServer[] = [];
  const samplers: { stop(): RssSample[] }[] = [];
  try {
    // One after the other: the first runs the migrations, the second finds them done.
    for (let index = 0; index < serverCount; index += 1) {
      const spec = await rampartSpec({
        config,
        runDir,
        databaseUrl,
        dataDir: path.join(runDir, `data-${index}`),
        logName: `rampart-${index}.log`,
        env: { RAMPART_MASTER_KEY: BENCH_MASTER_KEY },
      });
      const server = await startServer(spec);
      servers.push(server);
      samplers.push(sampleRss(server.pid!));
      log(`server ${index + 1}/${serverCount} ready at ${server.baseUrl} (log ${server.logPath})`);
    }
    log(`mix: ${settings.warmupS} s warm-up + ${durationS} s measured, ${settings.connections} connections`);
    const result = await runLoad({
      servers: servers.map((server) => server.baseUrl),
      databaseUrl,
      operatorToken: BENCH_OPERATOR_TOKEN,
      notifyUrl: receiver.url,
      warmupS: settings.warmupS,
      durationS,
      connections: settings.connections,
      users: settings.users,
    });
    const callbacks = await waitForCallbacks(receiver, result.transfers);
    const memory = samplers.map((sampler) => {
      const samples = sampler.stop().filter((sample) => sample.atMs <= result.measuredTo);
      return {
        rss: rssGrowth(samples, result.measuredFrom, result.measuredTo),
        timeline: rssTimeline(samples, result.measuredFrom - settings.warmupS * 1000),
      };
    });
    return { servers: serverCount, durationS, result, callbacks, memory };
  } finally {
    for (const sampler of samplers) sampler.stop();
    for (const server of servers) await server.stop();
    await receiver.close();
    await dropDatabase(config, database).catch(() => undefined);
    await rm(runDir, { recursive: true, force: true });
  }
}

const ms = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(1));
const percent = (ratio: number) => `${ratio >= 0 ? '+' : '−'}${Math.abs(ratio * 100).toFixed(1)}%`;

function renderRun(run: MixRun): string[] {
  const { result, callbacks } = run;
  const total = result.routes.reduce((sum, route) => sum + route.count, 0);
  const errors = result.routes.reduce((sum, route) => sum + route.errors, 0);
  const lines = [
    `### ${run.servers === 1 ? 'One server' : `${run.servers} servers on one database`}`,
    '',
    `${(total / run.durationS).toFixed(0)} req/s in all over ${run.durationS} s, ${errors} errors.`,
    '',
    ...markdownTable(
      ['route', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'statuses'],
      ['left', 'right', 'right', 'right', 'right', 'left'],
      result.routes.map((route) => [
        route.route,
        (route.count / run.durationS).toFixed(1),
        ms(route.p50Ms),
        ms(route.p99Ms),
        String(route.errors),
        JSON.stringify(route.statuses),
      ]),
    ),
    '',
    `Callbacks: ${callbacks.arrived} of ${callbacks.expected} transfers made in the window called back ` +
      `(lag from the transfer's answer: p50 ${ms(callbacks.lagP50Ms)} ms, p99 ${ms(callbacks.lagP99Ms)} ms); ` +
      `${callbacks.posts} POSTs received in all, warm-up included.`,
    '',
  ];
  run.memory.forEach(({ rss, timeline }, index) => {
    const growth = rss
      ? `${rss.startMb.toFixed(0)} → ${rss.endMb.toFixed(0)} MB after warm-up (${percent(rss.growth)}), peak ${rss.peakMb.toFixed(0)} MB`
      : 'not enough samples';
    lines.push(`- Server ${index + 1} RSS: ${growth}; over time: ${timeline}`);
  });
  return [...lines, ''];
}

async function main(): Promise<number> {
  const config = loadBenchConfig();
  const settings = mixSettings();
  const soak = process.argv[2] === 'soak';
  const lock = await lockBenchDatabase({ ...config, databaseName: `${config.databaseName}_mix` }, () =>
    log('another mix run is using the mix database: waiting for it to finish'),
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAllServers();
      process.exit(130);
    });
  }
  const startedAt = new Date();
  const loadAverage = os.loadavg()[0] ?? 0;
  const runs = soak
    ? [await runMix(config, { ...settings, warmupS: settings.soakWarmupS }, 1, settings.soakS)]
    : [
        await runMix(config, settings, 1, settings.durationS),
        await runMix(config, settings, 2, settings.durationS),
      ];
  const lines = [
    `## ${soak ? 'Soak' : 'Mixed load'} ${startedAt
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC')}`,
    '',
    `- Command: \`${invokingCommand().replace('node --import tsx bench/harness/run.ts', `node --import tsx bench/scenarios/mix.ts${soak ? ' soak' : ''}`)}\``,
    `- ${settings.connections} closed-loop connections from a second process, ` +
      `${soak ? settings.soakWarmupS : settings.warmupS} s warm-up; ` +
      `${settings.users} users; load average ${loadAverage.toFixed(2)} at start, ${os.loadavg()[0]?.toFixed(2)} at end`,
    '',
    ...runs.flatMap(renderRun),
  ];
  let pass = true;
  if (soak) {
    const rss = runs[0]!.memory[0]?.rss;
    pass = rss !== undefined && rss.growth <= SOAK_MAX_GROWTH;
    lines.push(
      '',
      `Figure: RSS flat within ${SOAK_MAX_GROWTH * 100}% over a ${(settings.soakS / 60).toFixed(1)}-minute soak: ` +
        `${rss ? percent(rss.growth) : 'not measured'} → ${pass ? 'PASS' : '**FAIL**'}` +
        (settings.soakS < 600 ? ' (shorter than the 10 minutes of the figure: BENCH_SOAK_S=600)' : ''),
    );
  }
  // One blank line between blocks (the formatter's rule for the committed file); newest run first.
  const report = `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
  process.stdout.write(`\n${report}`);
  const resultsFile = path.resolve(repoRoot, settings.resultsPath);
  const earlier = await readFile(resultsFile, 'utf8').catch(() => '');
  await writeFile(resultsFile, earlier ? `${report}\n${earlier}` : report);
  log(`wrote ${settings.resultsPath}`);
  await lock.release();
  return pass ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    killAllServers();
    process.exit(1);
  },
);
