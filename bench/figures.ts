/**
 * The figures a run checks. Each is data: the scenario it is about, what it is compared with, the
 * kind of comparison and the limit. The harness reads these to decide what to measure (which
 * scenarios run in alternating rounds with which baseline, which get a fixed-rate latency run), and
 * checks them against the measurements of the same run. Add an entry when an issue states a figure.
 */
import type { ColdStartResult } from './cold-start.ts';
import type { PacedResult } from './load.ts';
import { median } from './stats.ts';

export type FigureDefinition =
  /** Median over rounds of (scenario req/s ÷ baseline req/s in the same round) ≥ min. */
  | { kind: 'throughput-share'; description: string; scenario: string; baseline: string; min: number }
  /**
   * p99 latency (median over latency rounds) < maxP99Ms when the scenario is offered loadShare of
   * its own measured req/s at a fixed rate.
   */
  | { kind: 'p99-at-load-share'; description: string; scenario: string; loadShare: number; maxP99Ms: number }
  /** Slowest of the timed cold starts < maxMs. */
  | { kind: 'cold-start'; description: string; maxMs: number };

export const figures: readonly FigureDefinition[] = [
  {
    kind: 'throughput-share',
    description: 'Signed rate-locked POST /v3/orders/reserve req/s vs baseline (c)',
    scenario: 'reserve',
    baseline: 'insert',
    min: 0.6,
  },
  {
    kind: 'throughput-share',
    description: 'GET /v3/rates req/s vs baseline (a)',
    scenario: 'rates',
    baseline: 'hello',
    min: 0.6,
  },
  {
    kind: 'throughput-share',
    description: 'Error answer (404 envelope) req/s vs baseline (a)',
    scenario: 'not-found',
    baseline: 'hello',
    min: 0.6,
  },
  {
    kind: 'cold-start',
    description: 'Cold start on an existing data dir to /readyz ok (embedded PostgreSQL)',
    maxMs: 3000,
  },
  {
    kind: 'throughput-share',
    description: 'Signed GET /v3/accounts/{id} req/s vs baseline (b)',
    scenario: 'signed',
    baseline: 'select',
    min: 0.7,
  },
  {
    kind: 'throughput-share',
    description: 'Bearer GET /v3/accounts/{id} req/s vs baseline (b)',
    scenario: 'bearer',
    baseline: 'select',
    min: 0.75,
  },
  {
    kind: 'throughput-share',
    description: 'Signed, masqueraded GET /v3/users/{id}?scopes=TRANSFER req/s vs baseline (b)',
    scenario: 'user-scopes',
    baseline: 'select',
    min: 0.5,
  },
  {
    kind: 'p99-at-load-share',
    description: 'Signed GET /v3/accounts/{id} p99 at half its req/s',
    scenario: 'signed',
    loadShare: 0.5,
    maxP99Ms: 10,
  },
  {
    kind: 'p99-at-load-share',
    description: 'Bearer GET /v3/accounts/{id} p99 at half its req/s',
    scenario: 'bearer',
    loadShare: 0.5,
    maxP99Ms: 10,
  },
];

export interface Row {
  id: string;
  label: string;
  /** Requests (or, for pgbench, transactions) per second, median over rounds; undefined when not measured. */
  throughput: number | undefined;
  /** Lowest and highest per-round throughput. */
  throughputRange?: [number, number];
  unit: 'req/s' | 'tps';
  p50Ms: number | undefined;
  p99Ms: number | undefined;
  errors: number | undefined;
  /** Measurements the medians are taken over. */
  rounds?: number;
  comparedWith?: string;
  /** Why a row has no numbers, or what else a reader should know about it. */
  note?: string;
}

/** Per-round ratios of a scenario to a reference measured in the same rounds. */
export type RatioTable = ReadonlyMap<string, readonly number[]>;

export function ratioKey(scenario: string, reference: string): string {
  return `${scenario}/${reference}`;
}

export interface LatencyRun {
  /** Offered requests/s: loadShare of the scenario's median req/s. */
  rate: number;
  rounds: readonly PacedResult[];
  /** Set when the run could not be made. */
  error?: string;
}

export interface RunMeasurements {
  rows: readonly Row[];
  ratios: RatioTable;
  /** Keyed by `${scenario}@${loadShare}`, see latencyKey. */
  latency: ReadonlyMap<string, LatencyRun>;
  /** Undefined when not selected; an Error when it could not be measured. */
  coldStart: ColdStartResult | Error | undefined;
}

export function latencyKey(scenario: string, loadShare: number): string {
  return `${scenario}@${loadShare}`;
}

export interface Figure {
  description: string;
  measured: string;
  limit: string;
  pass: boolean;
}

/** `(a)` for a baseline labelled "(a) …", else the id: short enough for a table cell. */
export function shortName(row: Pick<Row, 'label' | 'id'>): string {
  return /^\([a-z]\)/.exec(row.label)?.[0] ?? row.id;
}

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

function check(definition: FigureDefinition, run: RunMeasurements): Figure | undefined {
  switch (definition.kind) {
    case 'throughput-share':
      return throughputShare(definition, run);
    case 'p99-at-load-share':
      return p99AtLoadShare(definition, run);
    case 'cold-start':
      return coldStart(definition, run);
  }
}

/** Figures whose scenarios were not selected (BENCH_ONLY) are left out, not failed. */
export function checkFigures(run: RunMeasurements): Figure[] {
  return figures.map((definition) => check(definition, run)).filter((figure) => figure !== undefined);
}
