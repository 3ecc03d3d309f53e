/**
 * The figures a run checks, each stated against a measurement of the same run. Add a check here
 * when an issue states a new figure (e.g. signed requests against baseline (b)).
 */
import type { ColdStartResult } from './cold-start.ts';

export interface Row {
  id: string;
  label: string;
  /** Requests (or, for pgbench, transactions) per second; undefined when not measured. */
  throughput: number | undefined;
  unit: 'req/s' | 'tps';
  p50Ms: number | undefined;
  p99Ms: number | undefined;
  errors: number | undefined;
  comparedWith?: string;
  /** Why a row has no numbers, or what else a reader should know about it. */
  note?: string;
}

export interface RunMeasurements {
  rows: readonly Row[];
  /** Undefined when not selected; an Error when it could not be measured. */
  coldStart: ColdStartResult | Error | undefined;
  coldStartLimitMs: number;
}

export interface Figure {
  description: string;
  measured: string;
  limit: string;
  pass: boolean;
}

type FigureCheck = (run: RunMeasurements) => Figure | undefined;

/** `(a)` for a baseline labelled "(a) …", else the id: short enough for a table cell. */
export function shortName(row: Row): string {
  return /^\([a-z]\)/.exec(row.label)?.[0] ?? row.id;
}

function row(run: RunMeasurements, id: string): Row | undefined {
  return run.rows.find((candidate) => candidate.id === id);
}

/** `share` of `reference`'s throughput, or a FAIL saying what is missing; undefined if neither ran. */
function throughputShare(run: RunMeasurements, id: string, reference: string, share: number, text: string) {
  const measured = row(run, id);
  const base = row(run, reference);
  if (!measured || !base) return undefined;
  const limit = `≥ ${Math.round(share * 100)}% of ${shortName(base)}`;
  if (measured.throughput === undefined || !base.throughput) {
    return { description: text, measured: 'not measured', limit, pass: false };
  }
  const ratio = measured.throughput / base.throughput;
  return { description: text, measured: `${(ratio * 100).toFixed(1)}%`, limit, pass: ratio >= share };
}

const coldStartCheck: FigureCheck = (run) => {
  const description = 'Cold start on an existing data dir to /readyz ok (embedded PostgreSQL)';
  const limit = `< ${(run.coldStartLimitMs / 1000).toFixed(1)} s, slowest of the runs`;
  if (run.coldStart === undefined) return undefined;
  if (run.coldStart instanceof Error || run.coldStart.readyAfterMs.length === 0) {
    return { description, measured: 'not measured', limit, pass: false };
  }
  const slowestMs = Math.max(...run.coldStart.readyAfterMs);
  const each = run.coldStart.readyAfterMs.map((ms) => (ms / 1000).toFixed(2)).join(', ');
  return {
    description,
    measured: `${(slowestMs / 1000).toFixed(2)} s (runs: ${each} s)`,
    limit,
    pass: slowestMs < run.coldStartLimitMs,
  };
};

export const figureChecks: readonly FigureCheck[] = [
  (run) =>
    throughputShare(run, 'not-found', 'hello', 0.6, 'Error answer (404 envelope) req/s vs baseline (a)'),
  coldStartCheck,
];

export function checkFigures(run: RunMeasurements): Figure[] {
  return figureChecks.map((check) => check(run)).filter((figure) => figure !== undefined);
}
