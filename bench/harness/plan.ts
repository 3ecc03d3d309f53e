/**
 * What a run measures and in which order, derived from the scenarios and the figures.
 *
 * Every scenario is measured in a *group* around a reference: the reference plus every scenario
 * compared with it (its `comparedWith`, or the baseline of a throughput-share figure). A group is
 * measured in rounds; each round measures every member once, with the reference in the middle and
 * the others alternating sides from round to round, figure scenarios next to the reference. A
 * ratio is then taken per round, between numbers seconds apart, and stated as the median over
 * rounds, so the box's swings (2× between consecutive runs on a busy 2-CPU VM) mostly cancel.
 */

import { scenarios } from '../scenarios/scenarios.ts';
import { type BenchConfig, selected } from './config.ts';
import { type FigureDefinition, figures, isCompared } from './figures.ts';
import type { HttpScenario } from './scenario.ts';

/**
 * Baseline (d), PostgreSQL's own TPC-B: not an HTTP scenario, but measured in rounds like one when a
 * figure compares a scenario with it, so that ratio too is taken between numbers seconds apart.
 */
export const PGBENCH = 'pgbench';

export interface Group {
  /** A scenario id, or PGBENCH. */
  reference: string;
  /** Compared with the reference, figure scenarios first. */
  members: readonly string[];
}

export interface Plan {
  /** Scenarios measured, in table order. */
  scenarios: readonly HttpScenario[];
  groups: readonly Group[];
  /** p99 figures whose scenario is measured. */
  latencyFigures: readonly Extract<FigureDefinition, { kind: 'p99-at-load-share' }>[];
  /** latency-flat figures whose scenario is measured: both sides paced at the same rate. */
  pairedLatencyFigures: readonly Extract<FigureDefinition, { kind: 'latency-flat' }>[];
  /** (d) is a group's reference, measured in its rounds instead of once after the HTTP part. */
  pgbenchInRounds: boolean;
}

/** Group references in table order; PGBENCH just before the first scenario compared with it. */
function referenceOrder(measured: readonly HttpScenario[], membersOf: Map<string, string[]>): string[] {
  const order = measured.map((scenario) => scenario.id);
  const pgbenchMembers = membersOf.get(PGBENCH);
  if (pgbenchMembers) {
    const first = order.findIndex((id) => pgbenchMembers.includes(id));
    order.splice(Math.max(0, first), 0, PGBENCH);
  }
  return order;
}

export function buildPlan(config: BenchConfig): Plan {
  const wanted = new Set(scenarios.filter((scenario) => selected(config, scenario.id)).map((s) => s.id));
  const comparedFigures = figures.filter(isCompared).filter((figure) => wanted.has(figure.scenario));
  // [scenario, reference] pairs; figure pairs first so figure scenarios sit next to the reference.
  const pairs: [string, string][] = comparedFigures.map((figure) => [figure.scenario, figure.baseline]);
  for (const scenario of scenarios) {
    if (wanted.has(scenario.id) && scenario.comparedWith) pairs.push([scenario.id, scenario.comparedWith]);
  }
  // A selected scenario brings its reference along: BENCH_ONLY=signed also measures (b).
  for (const [, reference] of pairs) wanted.add(reference);
  for (const id of wanted) {
    if (id !== PGBENCH && !scenarios.some((scenario) => scenario.id === id))
      throw new Error(`no scenario with id "${id}"`);
  }

  const membersOf = new Map<string, string[]>();
  for (const [scenario, reference] of pairs) {
    const members = membersOf.get(reference) ?? [];
    if (!members.includes(scenario)) members.push(scenario);
    membersOf.set(reference, members);
  }
  const inSomeGroup = new Set([...membersOf.keys(), ...[...membersOf.values()].flat()]);
  const measured = scenarios.filter((scenario) => wanted.has(scenario.id));
  const groups: Group[] = referenceOrder(measured, membersOf)
    .filter((id) => membersOf.has(id) || !inSomeGroup.has(id))
    .map((id) => ({ reference: id, members: membersOf.get(id) ?? [] }));
  const latencyFigures = figures.filter(
    (figure): figure is Extract<FigureDefinition, { kind: 'p99-at-load-share' }> =>
      figure.kind === 'p99-at-load-share' && wanted.has(figure.scenario),
  );
  const pairedLatencyFigures = figures.filter(
    (figure): figure is Extract<FigureDefinition, { kind: 'latency-flat' }> =>
      figure.kind === 'latency-flat' && wanted.has(figure.scenario),
  );
  return {
    scenarios: measured,
    groups,
    latencyFigures,
    pairedLatencyFigures,
    pgbenchInRounds: membersOf.has(PGBENCH),
  };
}

/**
 * Round `round`'s order: the reference in the middle, members alternately left and right of it,
 * nearest first, swapping sides every round, so no member is always measured before (or after)
 * its reference and slow drift cancels over an even number of rounds.
 */
export function roundOrder(group: Group, round: number): string[] {
  const left: string[] = [];
  const right: string[] = [];
  group.members.forEach((member, index) => {
    ((index + round) % 2 === 0 ? left : right).push(member);
  });
  return [...left.reverse(), group.reference, ...right];
}

/** BENCH_ROUNDS, or fewer when the group's reference asks for fewer (see HttpScenario.rounds). */
export function groupRounds(group: Group, config: BenchConfig): number {
  const reference = scenarios.find((scenario) => scenario.id === group.reference);
  return Math.min(config.rounds, reference?.rounds ?? config.rounds);
}

/** Number of load measurements the plan makes: for the watchdog and the time estimate. */
export function measurementCount(plan: Plan, config: BenchConfig): number {
  const measured = plan.groups.reduce(
    (sum, group) => sum + (group.members.length + 1) * groupRounds(group, config),
    0,
  );
  // Each latency round also paces the scenario's control (or, for latency-flat, its baseline).
  const latencyRuns = plan.latencyFigures.length + plan.pairedLatencyFigures.length;
  return measured + latencyRuns * config.latencyRounds * 2;
}
