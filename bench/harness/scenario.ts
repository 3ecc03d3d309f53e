/**
 * What a scenario is: the server it loads and how it builds its requests. The harness runs them;
 * `bench/scenarios/` lists them.
 */
import type { BenchConfig } from './config.ts';

export type TargetName = 'baseline' | 'rampart' | 'rampart-ledger-small' | 'rampart-ledger-large';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestSpec {
  method: HttpMethod;
  /** Path and query, starting with `/`. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A fixed request (cheapest for the load generator), or one built anew for every request. */
export type RequestSource = RequestSpec | (() => RequestSpec);

export interface ScenarioContext {
  /** The target's base URL; for Rampart also its RAMPART_PUBLIC_URL, the base signatures cover. */
  baseUrl: string;
  /** Rampart's RAMPART_OPERATOR_TOKEN, for fixtures made through the operator API. */
  operatorToken: string;
  /** The database the target serves from, for fixtures that are simpler to write in SQL. */
  databaseUrl: string;
  config: BenchConfig;
}

export interface HttpScenario {
  /** Short stable id: used by BENCH_ONLY, by `comparedWith` and by the figures. */
  id: string;
  /** Row label in RESULTS.md. */
  label: string;
  target: TargetName;
  /** Any other status counts as an error for this scenario. */
  expectedStatus: number;
  /**
   * Id of the scenario this one's req/s is stated against in the table. The two are measured in
   * alternating rounds and the ratio is the median of the per-round ratios.
   */
  comparedWith?: string;
  requests: (context: ScenarioContext) => RequestSource | Promise<RequestSource>;
  /** Seconds the fixtures may take beyond the usual 30 (bulk SQL seeding). */
  fixtureTimeoutS?: number;
  /**
   * Every request leaves work for the job runner (a card order is processed by the worker): after
   * each measurement the harness waits until no job is due, so the next measurement is not
   * charged for this one's backlog.
   */
  drainJobs?: boolean;
  /**
   * Rounds of the group this scenario is the reference of, when fewer than BENCH_ROUNDS will do:
   * groups whose closed-loop numbers only set the rate of a latency-flat figure.
   */
  rounds?: number;
}
