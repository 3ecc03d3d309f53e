/**
 * The HTTP scenarios of a run, in table order. A scenario names the server it loads and how to build
 * its requests; the harness does the rest (start the target, warm up, measure, compare).
 *
 * To add one: append an entry. `requests` runs once inside the load-generator process before the
 * warm-up, so it may create fixtures (an API key, a signing secret) and return a function that
 * signs each request; that function is called for every request, so keep it cheap.
 */

import type { BenchConfig } from './config.ts';

export type TargetName = 'baseline' | 'rampart';

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
  baseUrl: string;
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
  /** Id of the scenario this one's req/s is stated against. */
  comparedWith?: string;
  requests: (context: ScenarioContext) => RequestSource | Promise<RequestSource>;
}

export const scenarios: readonly HttpScenario[] = [
  {
    id: 'hello',
    label: '(a) bare Fastify hello-world',
    target: 'baseline',
    expectedStatus: 200,
    requests: () => ({ method: 'GET', path: '/hello' }),
  },
  {
    id: 'select',
    label: '(b) bare Fastify + one PK SELECT',
    target: 'baseline',
    expectedStatus: 200,
    comparedWith: 'hello',
    // A new id per request, so the route pays for a path parameter and rows are not all one hot
    // page, and so request building costs the same as the signed scenarios later compared with it.
    requests: ({ config }) => {
      const rows = config.kvRows;
      return () => ({ method: 'GET', path: `/kv/${1 + Math.floor(Math.random() * rows)}` });
    },
  },
  {
    id: 'insert',
    label: '(c) bare Fastify + one-row INSERT tx',
    target: 'baseline',
    expectedStatus: 201,
    comparedWith: 'hello',
    requests: () => ({
      method: 'POST',
      path: '/kv',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: 'bench-insert' }),
    }),
  },
  {
    id: 'healthz',
    label: 'Rampart GET /healthz',
    target: 'rampart',
    expectedStatus: 200,
    comparedWith: 'hello',
    requests: () => ({ method: 'GET', path: '/healthz' }),
  },
  {
    id: 'not-found',
    label: 'Rampart 404 error envelope',
    target: 'rampart',
    expectedStatus: 404,
    comparedWith: 'hello',
    requests: () => ({ method: 'GET', path: '/v3/no-such-route' }),
  },
];

export function findScenario(id: string): HttpScenario {
  const scenario = scenarios.find((candidate) => candidate.id === id);
  if (!scenario) throw new Error(`no scenario with id "${id}"`);
  return scenario;
}
