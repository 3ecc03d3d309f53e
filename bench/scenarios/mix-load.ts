/**
 * The mixed load's own process (forked by mix.ts, driven over IPC): makes the fixtures through the
 * first server, then runs `connections` closed-loop workers for warm-up + duration seconds, each
 * drawing an op of mix-ops.ts by weight and sending it to the servers in turn. Answers per-route
 * counts, errors and latencies of the measured window, and the transfers whose callbacks the
 * harness should receive.
 */
import http from 'node:http';
import type { BenchConfig } from '../harness/config.ts';
import { loadBenchConfig } from '../harness/config.ts';
import type { RequestSpec } from '../harness/scenario.ts';
import { percentile } from '../harness/stats.ts';
import { type MixContext, makeMixFixture, pickOp, signerFor } from './mix-ops.ts';

export interface MixCommand {
  servers: string[];
  databaseUrl: string;
  operatorToken: string;
  notifyUrl: string;
  warmupS: number;
  durationS: number;
  connections: number;
  users: number;
}

export interface RouteStats {
  route: string;
  count: number;
  errors: number;
  statuses: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
}

export interface MixResult {
  measuredS: number;
  routes: RouteStats[];
  /** Transfers answered 200 in the measured window: id → epoch ms of the answer. */
  transfers: [string, number][];
  /** When the measured window began and ended (epoch ms): the harness's RSS window. */
  measuredFrom: number;
  measuredTo: number;
}

interface Tally {
  count: number;
  errors: number;
  statuses: Record<string, number>;
  latencies: number[];
}

function request(agent: http.Agent, baseUrl: string, spec: RequestSpec) {
  const target = new URL(baseUrl);
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const outgoing = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: spec.method,
        path: spec.path,
        headers: spec.headers,
        timeout: 15_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.end(spec.body);
  });
}

async function run(command: MixCommand, config: BenchConfig): Promise<MixResult> {
  const first = command.servers[0]!;
  const fixture = await makeMixFixture(
    { baseUrl: first, operatorToken: command.operatorToken, databaseUrl: command.databaseUrl, config },
    command.users,
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: command.connections });
  const signers = command.servers.map((baseUrl) => signerFor(baseUrl, fixture));
  const tallies = new Map<string, Tally>();
  const transfers = new Map<string, number>();
  const recent: string[] = [];
  let recording = false;
  let sequence = 0;
  let turn = 0;

  const contextFor = (serverIndex: number): MixContext => {
    const baseUrl = command.servers[serverIndex]!;
    return {
      fixture,
      sign: signers[serverIndex]!,
      notifyUrl: command.notifyUrl,
      transfers,
      recent,
      sequence: () => sequence++,
      send: async (route, spec, expected) => {
        const startedAt = performance.now();
        let outcome: { status: number; text: string } | undefined;
        try {
          outcome = await request(agent, baseUrl, spec);
        } catch {
          outcome = undefined;
        }
        if (recording) {
          const tally = tallies.get(route) ?? { count: 0, errors: 0, statuses: {}, latencies: [] };
          tallies.set(route, tally);
          tally.count += 1;
          const status = String(outcome?.status ?? 'network error');
          tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
          if (outcome?.status === expected) tally.latencies.push(performance.now() - startedAt);
          else tally.errors += 1;
        }
        return outcome?.status === expected ? outcome.text : undefined;
      },
    };
  };

  const contexts = command.servers.map((_, index) => contextFor(index));
  const warmupEnds = Date.now() + command.warmupS * 1000;
  const ends = warmupEnds + command.durationS * 1000;
  const worker = async () => {
    while (Date.now() < ends) {
      const context = contexts[turn++ % contexts.length]!;
      await pickOp().run(context);
    }
  };
  const recordAt = setTimeout(() => {
    recording = true;
    // Transfers made while warming up are not this window's: their callbacks are not counted.
    transfers.clear();
  }, command.warmupS * 1000);
  await Promise.all(Array.from({ length: command.connections }, worker));
  clearTimeout(recordAt);
  agent.destroy();
  const routes = [...tallies.entries()]
    .map(([route, tally]) => {
      const sorted = tally.latencies.sort((left, right) => left - right);
      return {
        route,
        count: tally.count,
        errors: tally.errors,
        statuses: tally.statuses,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
      };
    })
    .sort((left, right) => left.route.localeCompare(right.route));
  return {
    measuredS: command.durationS,
    routes,
    transfers: [...transfers.entries()],
    measuredFrom: warmupEnds,
    measuredTo: ends,
  };
}

const config = loadBenchConfig();
process.once('disconnect', () => process.exit(0));
process.once('message', (message) => {
  run(message as MixCommand, config).then(
    (value) => process.send?.({ ok: true, value }),
    (error: unknown) =>
      process.send?.({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
});
