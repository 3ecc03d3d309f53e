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
import { type BenchConfig, selected } from './config.ts';
import { type FigureDefinition, figures } from './figures.ts';
import { type HttpScenario, scenarios } from './scenarios.ts';

export interface Group {
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
}

export function buildPlan(config: BenchConfig): Plan {
  const wanted = new Set(scenarios.filter((scenario) => selected(config, scenario.id)).map((s) => s.id));
  const shareFigures = figures.filter(
    (figure): figure is Extract<FigureDefinition, { kind: 'throughput-share' }> =>
      figure.kind === 'throughput-share' && wanted.has(figure.scenario),
  );
  // [scenario, reference] pairs; figure pairs first so figure scenarios sit next to the reference.
  const pairs: [string, string][] = shareFigures.map((figure) => [figure.scenario, figure.baseline]);
  for (const scenario of scenarios) {
    if (wanted.has(scenario.id) && scenario.comparedWith) pairs.push([scenario.id, scenario.comparedWith]);
  }
  // A selected scenario brings its reference along: BENCH_ONLY=signed also measures (b).
  for (const [, reference] of pairs) wanted.add(reference);
  for (const id of wanted) {
    if (!scenarios.some((scenario) => scenario.id === id)) throw new Error(`no scenario with id "${id}"`);
  }

  const membersOf = new Map<string, string[]>();
  for (const [scenario, reference] of pairs) {
    const members = membersOf.get(reference) ?? [];
    if (!members.includes(scenario)) members.push(scenario);
    membersOf.set(reference, members);
  }
  const inSomeGroup = new Set([...membersOf.keys(), ...[...membersOf.values()].flat()]);
  const measured = scenarios.filter((scenario) => wanted.has(scenario.id));
  const groups: Group[] = measured
    .filter((scenario) => membersOf.has(scenario.id) || !inSomeGroup.has(scenario.id))
    .map((scenario) => ({ reference: scenario.id, members: membersOf.get(scenario.id) ?? [] }));
  const latencyFigures = figures.filter(
    (figure): figure is Extract<FigureDefinition, { kind: 'p99-at-load-share' }> =>
      figure.kind === 'p99-at-load-share' && wanted.has(figure.scenario),
  );
  return { scenarios: measured, groups, latencyFigures };
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

/** Number of load measurements the plan makes: for the watchdog and the time estimate. */
export function measurementCount(plan: Plan, config: BenchConfig): number {
  const perRound = plan.groups.reduce((sum, group) => sum + group.members.length + 1, 0);
  // Each latency round also paces the scenario's control at the same rate.
  return perRound * config.rounds + plan.latencyFigures.length * config.latencyRounds * 2;
}
