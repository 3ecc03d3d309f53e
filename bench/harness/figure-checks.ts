/** Checks each figure of figures.ts against the measurements of the same run. */
import {
  type Figure,
  type FigureDefinition,
  figures,
  latencyKey,
  type RunMeasurements,
  ratioKey,
  shortName,
} from './figures.ts';
import { median } from './stats.ts';

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
const ms = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(1));

function throughputShare(
  definition: Extract<FigureDefinition, { kind: 'throughput-share' }>,
  run: RunMeasurements,
) {
  const scenario = run.rows.find((row) => row.id === definition.scenario);
  const base = run.rows.find((row) => row.id === definition.baseline);
  if (!scenario || !base) return undefined;
  const { description } = definition;
  const limit = `median ≥ ${Math.round(definition.min * 100)}% of ${shortName(base)}`;
  const ratios = run.ratios.get(ratioKey(definition.scenario, definition.baseline)) ?? [];
  if (ratios.length === 0) return { description, measured: 'not measured', limit, pass: false };
  const middle = median(ratios);
  const measured =
    `${percent(middle)} (min ${percent(Math.min(...ratios))}, max ${percent(Math.max(...ratios))}, ` +
    `${ratios.length} rounds)`;
  return { description, measured, limit, pass: middle >= definition.min };
}

function p99AtLoadShare(
  definition: Extract<FigureDefinition, { kind: 'p99-at-load-share' }>,
  run: RunMeasurements,
) {
  const latency = run.latency.get(latencyKey(definition.scenario, definition.loadShare));
  if (!run.rows.some((row) => row.id === definition.scenario)) return undefined;
  const { description } = definition;
  const limit = `median p99 < ${definition.maxP99Ms} ms at ${Math.round(definition.loadShare * 100)}% load`;
  if (!latency || latency.rounds.length === 0) {
    return {
      description,
      measured: `not measured${latency?.error ? `: ${latency.error}` : ''}`,
      limit,
      pass: false,
    };
  }
  const p99s = latency.rounds.map((round) => round.p99Ms);
  const middle = median(p99s);
  const achieved = median(latency.rounds.map((round) => round.achievedRate));
  const failures = latency.rounds.reduce((sum, round) => sum + round.errors + round.unexpectedStatus, 0);
  const measured =
    `${ms(middle)} ms at ${Math.round(latency.rate)} req/s offered (rounds: ${p99s.map(ms).join(', ')} ms; ` +
    `p50 ${ms(median(latency.rounds.map((round) => round.p50Ms)))} ms; sent ${Math.round(achieved)} req/s` +
    `${failures > 0 ? `; ${failures} failed` : ''})`;
  return { description, measured, limit, pass: middle < definition.maxP99Ms && failures === 0 };
}

function coldStart(definition: Extract<FigureDefinition, { kind: 'cold-start' }>, run: RunMeasurements) {
  const { description } = definition;
  const limit = `< ${(definition.maxMs / 1000).toFixed(1)} s, slowest of the runs`;
  if (run.coldStart === undefined) return undefined;
  if (run.coldStart instanceof Error || run.coldStart.readyAfterMs.length === 0) {
    return { description, measured: 'not measured', limit, pass: false };
  }
  const slowestMs = Math.max(...run.coldStart.readyAfterMs);
  const each = run.coldStart.readyAfterMs.map((value) => (value / 1000).toFixed(2)).join(', ');
  return {
    description,
    measured: `${(slowestMs / 1000).toFixed(2)} s (runs: ${each} s)`,
    limit,
    pass: slowestMs < definition.maxMs,
  };
}

const signedPercent = (ratio: number) =>
  `${ratio >= 1 ? '+' : '−'}${(Math.abs(ratio - 1) * 100).toFixed(1)}%`;

function flatLimit(maxChange: number, what: string, base: string): string {
  return `median ${what} within ±${Math.round(maxChange * 100)}% of ${base}'s`;
}

function throughputFlat(
  definition: Extract<FigureDefinition, { kind: 'throughput-flat' }>,
  run: RunMeasurements,
) {
  const scenario = run.rows.find((row) => row.id === definition.scenario);
  const base = run.rows.find((row) => row.id === definition.baseline);
  if (!scenario || !base) return undefined;
  const { description } = definition;
  const limit = flatLimit(definition.maxChange, 'req/s', shortName(base));
  const ratios = run.ratios.get(ratioKey(definition.scenario, definition.baseline)) ?? [];
  if (ratios.length === 0) return { description, measured: 'not measured', limit, pass: false };
  const middle = median(ratios);
  const measured =
    `${signedPercent(middle)} (ratio ${middle.toFixed(2)}; min ${Math.min(...ratios).toFixed(2)}, ` +
    `max ${Math.max(...ratios).toFixed(2)}, ${ratios.length} rounds)`;
  return { description, measured, limit, pass: Math.abs(middle - 1) <= definition.maxChange };
}

function latencyFlat(definition: Extract<FigureDefinition, { kind: 'latency-flat' }>, run: RunMeasurements) {
  const base = run.rows.find((row) => row.id === definition.baseline);
  if (!base || !run.rows.some((row) => row.id === definition.scenario)) return undefined;
  const { description } = definition;
  const limit = flatLimit(definition.maxChange, 'p50', shortName(base));
  const paired = run.pairedLatency.get(ratioKey(definition.scenario, definition.baseline));
  const rounds = Math.min(paired?.scenario.length ?? 0, paired?.baseline.length ?? 0);
  if (!paired || rounds === 0) {
    const why = paired?.error ? `: ${paired.error}` : '';
    return { description, measured: `not measured${why}`, limit, pass: false };
  }
  const ratios = paired.scenario
    .slice(0, rounds)
    .map((sample, i) => sample.p50Ms / paired.baseline[i]!.p50Ms);
  const middle = median(ratios);
  const p50 = (samples: typeof paired.scenario) => ms(median(samples.map((sample) => sample.p50Ms)));
  const p99 = (samples: typeof paired.scenario) => ms(median(samples.map((sample) => sample.p99Ms)));
  const failures = [...paired.scenario, ...paired.baseline].reduce(
    (sum, sample) => sum + sample.errors + sample.unexpectedStatus,
    0,
  );
  const measured =
    `${signedPercent(middle)} (p50 ${p50(paired.scenario)} vs ${p50(paired.baseline)} ms, ` +
    `p99 ${p99(paired.scenario)} vs ${p99(paired.baseline)} ms, both at ${Math.round(paired.rate)} req/s; ` +
    `per-round ratios ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}` +
    `${failures > 0 ? `; ${failures} failed` : ''})`;
  return {
    description,
    measured,
    limit,
    pass: Math.abs(middle - 1) <= definition.maxChange && failures === 0,
  };
}

function check(definition: FigureDefinition, run: RunMeasurements): Figure | undefined {
  switch (definition.kind) {
    case 'throughput-share':
      return throughputShare(definition, run);
    case 'p99-at-load-share':
      return p99AtLoadShare(definition, run);
    case 'cold-start':
      return coldStart(definition, run);
    case 'throughput-flat':
      return throughputFlat(definition, run);
    case 'latency-flat':
      return latencyFlat(definition, run);
  }
}

/** Figures whose scenarios were not selected (BENCH_ONLY) are left out, not failed. */
export function checkFigures(run: RunMeasurements): Figure[] {
  return figures.map((definition) => check(definition, run)).filter((figure) => figure !== undefined);
}
