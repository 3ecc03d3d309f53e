/**
 * The figures a run checks. Each is data: the scenario it is about, what it is compared with, the
 * kind of comparison and the limit. The harness reads these to decide what to measure (which
 * scenarios run in alternating rounds with which baseline, which get a fixed-rate latency run), and
 * checks them against the measurements of the same run. Add an entry when an issue states a figure.
 */
import type { ColdStartResult } from './cold-start.ts';
import type { PacedResult } from './load.ts';

export type FigureDefinition =
  /** Median over rounds of (scenario req/s ÷ baseline req/s in the same round) ≥ min. */
  | { kind: 'throughput-share'; description: string; scenario: string; baseline: string; min: number }
  /**
   * p99 latency (median over latency rounds) < maxP99Ms when the scenario is offered loadShare of
   * its own measured req/s at a fixed rate.
   */
  | { kind: 'p99-at-load-share'; description: string; scenario: string; loadShare: number; maxP99Ms: number }
  /** Slowest of the timed cold starts < maxMs. */
  | { kind: 'cold-start'; description: string; maxMs: number }
  /**
   * Median over rounds of (scenario req/s ÷ baseline req/s in the same round) within 1 ± maxChange:
   * the same route on data of different sizes.
   */
  | { kind: 'throughput-flat'; description: string; scenario: string; baseline: string; maxChange: number }
  /**
   * Scenario and baseline each offered loadShare of the baseline's median req/s at a fixed rate,
   * alternately; the median over rounds of (scenario p50 ÷ baseline p50) within 1 ± maxChange.
   */
  | {
      kind: 'latency-flat';
      description: string;
      scenario: string;
      baseline: string;
      loadShare: number;
      maxChange: number;
    };

/** Figures comparing a scenario with another measurement (a scenario, or `pgbench`) in the same rounds. */
export type ComparedFigure = Extract<FigureDefinition, { baseline: string }>;

export function isCompared(figure: FigureDefinition): figure is ComparedFigure {
  return 'baseline' in figure;
}

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
  {
    kind: 'throughput-share',
    description:
      'Confirmed user→user transfers (autoConfirm, signed, masqueraded; spread over many users) vs baseline (d) TPC-B tps',
    scenario: 'transfer-spread',
    baseline: 'pgbench',
    min: 0.4,
  },
  {
    kind: 'throughput-share',
    description: 'The same transfers all drawing on one hot partner balance vs the spread-out rate',
    scenario: 'transfer-hot',
    baseline: 'transfer-spread',
    min: 0.5,
  },
  {
    kind: 'latency-flat',
    description: 'GET /v3/transfers/{id} p50 at half load: ledger of 1 million vs 10 thousand postings',
    scenario: 'ledger-transfer-large',
    baseline: 'ledger-transfer-small',
    loadShare: 0.5,
    maxChange: 0.2,
  },
  {
    kind: 'latency-flat',
    description:
      'Balance read GET /v3/accounts/{id} p50 at half load: ledger of 1 million vs 10 thousand postings',
    scenario: 'ledger-balance-large',
    baseline: 'ledger-balance-small',
    loadShare: 0.5,
    maxChange: 0.2,
  },
  {
    kind: 'throughput-share',
    description: 'POST /v3/widget/limits/calculate req/s vs baseline (b)',
    scenario: 'limits',
    baseline: 'select',
    min: 0.5,
  },
  {
    kind: 'throughput-flat',
    description: 'POST /v3/widget/limits/calculate req/s: address with 100 thousand vs 10 past orders',
    scenario: 'limits-heavy',
    baseline: 'limits',
    maxChange: 0.2,
  },
  {
    kind: 'throughput-share',
    description:
      'Card order POST /v3/debitcard/process/partner (rate-locked reservation) req/s vs baseline (c)',
    scenario: 'card-order',
    baseline: 'insert',
    min: 0.4,
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

/** Fixed-rate runs of a scenario and its baseline at the same rate; index i of both is round i. */
export interface PairedLatencyRun {
  rate: number;
  scenario: readonly PacedResult[];
  baseline: readonly PacedResult[];
  error?: string;
}

export interface RunMeasurements {
  rows: readonly Row[];
  ratios: RatioTable;
  /** Keyed by `${scenario}@${loadShare}`, see latencyKey. */
  latency: ReadonlyMap<string, LatencyRun>;
  /** Keyed by ratioKey(scenario, baseline), for latency-flat figures. */
  pairedLatency: ReadonlyMap<string, PairedLatencyRun>;
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
