/**
 * The fixed-rate (open-loop) part of a run: p99 at a share of a scenario's measured req/s with its
 * control beside it, and latency-flat pairs (a scenario and its baseline paced at one rate).
 */

import { findScenario } from '../scenarios/scenarios.ts';
import type { BenchConfig } from './config.ts';
import { type LatencyRun, latencyKey, type PairedLatencyRun, type Row, ratioKey } from './figures.ts';
import type { LoadGenerator, PacedResult } from './load.ts';
import { firstLine, log } from './log.ts';
import type { Plan } from './plan.ts';
import { median } from './stats.ts';

export interface LatencyMeasurements {
  rows: readonly Row[];
  latency: Map<string, LatencyRun>;
  pairedLatency: Map<string, PairedLatencyRun>;
}

async function pace(
  generator: LoadGenerator,
  config: BenchConfig,
  id: string,
  rate: number,
  round: number,
): Promise<PacedResult> {
  const sample = await generator.paced(id, rate, config.warmupS, config.durationS);
  log(
    `latency round ${round + 1}/${config.latencyRounds} ${id} at ${rate} req/s: ` +
      `p50 ${sample.p50Ms.toFixed(2)} ms, p99 ${sample.p99Ms.toFixed(2)} ms, max ${sample.maxMs.toFixed(1)} ms, ` +
      `sent ${sample.achievedRate.toFixed(0)} req/s (worst lag ${sample.maxLagMs.toFixed(1)} ms), ` +
      `failed ${sample.errors + sample.unexpectedStatus}`,
  );
  return sample;
}

/**
 * Fixed-rate runs at a share of each scenario's median req/s, alternating scenarios per round. Each
 * is paired with a control: the scenario's `comparedWith` at the same rate in the same round, so a
 * tail that comes from the machine (other work, the sender itself) shows in both.
 */
export async function measureLatency(
  plan: Plan,
  config: BenchConfig,
  generator: LoadGenerator,
  into: LatencyMeasurements,
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
  for (let round = 0; round < config.latencyRounds; round += 1) {
    const ordered = round % 2 === 0 ? runs : [...runs].reverse();
    for (const entry of ordered) {
      const { figure, key, run, control } = entry;
      const steps = [figure.scenario, ...(control ? [control] : [])];
      for (const id of round % 2 === 0 ? steps : steps.reverse()) {
        try {
          const sample = await pace(generator, config, id, run.rate, round);
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

/**
 * latency-flat figures: the scenario and its baseline paced at the same rate (loadShare of the
 * baseline's median req/s), in alternating order from round to round, so each round gives one
 * ratio of p50s measured seconds apart.
 */
export async function measurePairedLatency(
  plan: Plan,
  config: BenchConfig,
  generator: LoadGenerator,
  into: LatencyMeasurements,
  usable: (id: string) => boolean,
) {
  for (const figure of plan.pairedLatencyFigures) {
    const key = ratioKey(figure.scenario, figure.baseline);
    const base = into.rows.find((row) => row.id === figure.baseline);
    if (!base?.throughput || !usable(figure.scenario) || !usable(figure.baseline)) {
      into.pairedLatency.set(key, { rate: 0, scenario: [], baseline: [], error: 'no throughput to pace at' });
      continue;
    }
    const rate = Math.max(1, Math.round(base.throughput * figure.loadShare));
    const rounds = { scenario: [] as PacedResult[], baseline: [] as PacedResult[] };
    into.pairedLatency.set(key, { rate, ...rounds });
    try {
      for (let round = 0; round < config.latencyRounds; round += 1) {
        const order =
          round % 2 === 0 ? [figure.baseline, figure.scenario] : [figure.scenario, figure.baseline];
        for (const id of order) {
          const sample = await pace(generator, config, id, rate, round);
          (id === figure.scenario ? rounds.scenario : rounds.baseline).push(sample);
        }
      }
    } catch (error) {
      log(`latency ${figure.scenario} / ${figure.baseline} failed: ${firstLine(error)}`);
      into.pairedLatency.set(key, { rate, ...rounds, error: firstLine(error) });
    }
  }
}
