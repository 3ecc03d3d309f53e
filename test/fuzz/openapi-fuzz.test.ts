import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { BOOKKEEPING_COLUMNS, snapshotTables } from '../helpers/db.ts';
import { expectEnvelope, portOf, rawRequest } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials, sign } from '../helpers/partner.ts';
import { isHtmlRoute, isPublicRoute } from '../helpers/routes.ts';
import {
  arbitraryFor,
  HOSTILE_STRINGS,
  type JsonSchema,
  mutate,
  rawHostileBody,
} from './schema-arbitrary.ts';

/**
 * Schema-driven fuzzing of every route /openapi.json lists (issue 9): requests shaped by each
 * route's own schemas, then broken (wrong types, hostile strings, huge and deep JSON, ids with
 * path traversal), sent signed by a real partner so they get past authentication. Whatever
 * arrives: never a 5xx, every JSON error is the envelope, and a refused request leaves every
 * table as it was. FUZZ_RUNS (cases per route) and FUZZ_SEED make a run longer or different;
 * `npm run fuzz` runs it longer.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);

/** Tables a refused request may still write: audit trails and the consumed-signature guard. */
const MAY_CHANGE = ['operator_audit', 'access_audit', 'signature_replays'];
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema?: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface Route {
  method: string;
  template: string;
  operation: Operation;
}
interface Fixture {
  partner: PartnerCredentials;
  userId: string;
}
interface FuzzCase {
  pathParams: Record<string, string>;
  query: [string, string][];
  body: string | Buffer | undefined;
  contentType: string;
  masquerade: boolean;
}

let t: TestApp;
let fixture: Fixture;
let routes: Route[];

beforeAll(async () => {
  t = await startTestApp({
    env: { RAMPART_RATE_LIMIT_PER_IP: '10000000', RAMPART_RATE_LIMIT_PER_KEY: '10000000' },
  });
  const partner = await createPartner(t, { usersApi: true });
  const created = await send(
    t,
    partner,
    'POST',
    '/v3/users',
    [],
    JSON.stringify({}),
    'application/json',
    null,
  );
  expect(created.status, created.text).toBe(200);
  fixture = { partner, userId: (JSON.parse(created.text) as { id: string }).id };
  const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  routes = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (['get', 'post', 'put', 'delete', 'patch'].includes(method)) {
        routes.push({ method: method.toUpperCase(), template, operation });
      }
    }
  }
}, 60_000);
afterAll(async () => t?.close());

async function send(
  app: TestApp,
  partner: PartnerCredentials,
  method: string,
  path: string,
  query: [string, string][],
  body: string | Buffer | undefined,
  contentType: string,
  template: string | null,
) {
  const search = new URLSearchParams([...query, ['timestamp', String(Date.now())]]).toString();
  const pathAndQuery = `${path}?${search}`;
  const headers: Record<string, string> = {};
  if (template?.startsWith('/operator/')) Object.assign(headers, operatorHeaders());
  else if (!template || !isOpen(template)) {
    headers['x-api-key'] = partner.apiKey;
    headers['x-api-signature'] = sign(partner.secretKey, `${app.baseUrl}${pathAndQuery}`, body);
  }
  if (body !== undefined) headers['content-type'] = contentType;
  const response = await fetch(`${app.baseUrl}${pathAndQuery}`, {
    method,
    headers,
    ...(body !== undefined ? { body: body as BodyInit } : {}),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

const isOpen = (template: string) => isPublicRoute(template) || isHtmlRoute(template);

const HOSTILE_IDS = [
  '..',
  '../../etc/passwd',
  '%2e%2e%2f%2e%2e',
  '%00',
  'US_%0d%0aX-Injected:1',
  'AC_<script>',
  "1'OR'1'='1",
  'x'.repeat(190),
  'x'.repeat(300),
  '🚀',
  'TF_AAAAAAAAAAA',
  'WO_AAAAAAAAAAA',
];
/** Parameters every route takes (signature timestamp, Wyre's format, masquerading): set by send(). */
const COMMON_QUERY = ['timestamp', 'format', 'masqueradeAs'];
/** Paths that act for a user: a well-formed request masquerades as the fixture's user. */
const USER_PATHS = ['/v3/users/{userId}', '/v2/paymentMethod'];

/** The fixture's own id where the parameter names one, so requests reach the services. */
function realId(name: string): string {
  if (name === 'accountId') return fixture.partner.accountId;
  if (name === 'userId') return fixture.userId;
  return HOSTILE_IDS[9] ?? 'x';
}

function partsOf(route: Route) {
  const parameters = route.operation.parameters ?? [];
  return {
    pathParams: parameters.filter((parameter) => parameter.in === 'path'),
    queryParams: parameters.filter(
      (parameter) => parameter.in === 'query' && !COMMON_QUERY.includes(parameter.name),
    ),
    jsonSchema: route.operation.requestBody?.content?.['application/json']?.schema,
    takesBody: route.method !== 'GET' && route.method !== 'DELETE',
  };
}

/** A request as the schemas describe it: what a correct client would send. */
function wellFormedCase(route: Route): fc.Arbitrary<FuzzCase> {
  const { pathParams, queryParams, jsonSchema, takesBody } = partsOf(route);
  const query = fc
    .tuple(...queryParams.map((parameter) => fc.option(arbitraryFor(parameter.schema), { nil: undefined })))
    .map((values) =>
      queryParams.flatMap((parameter, index): [string, string][] =>
        values[index] === undefined ? [] : [[parameter.name, String(values[index])]],
      ),
    );
  const body: fc.Arbitrary<string | Buffer | undefined> =
    takesBody && jsonSchema
      ? arbitraryFor(jsonSchema).map((value) => JSON.stringify(value))
      : fc.constant(undefined);
  return fc.record({
    pathParams: fc.constant(
      Object.fromEntries(pathParams.map((parameter) => [parameter.name, realId(parameter.name)])),
    ),
    query,
    body,
    contentType: fc.constant('application/json'),
    masquerade: fc.constant(USER_PATHS.some((prefix) => route.template.startsWith(prefix))),
  });
}

/** A well-formed request with one thing broken: an id, a query parameter, the body, its type. */
function brokenCase(route: Route): fc.Arbitrary<FuzzCase> {
  const { pathParams, queryParams, jsonSchema, takesBody } = partsOf(route);
  return wellFormedCase(route).chain((base) => {
    const breakages: fc.Arbitrary<FuzzCase>[] = [
      fc
        .constantFrom<[string, string]>(
          ['unknownParam', '1'],
          ['format', 'xml'],
          ['format', 'json'],
          ['timestamp', 'abc'],
        )
        .map((pair) => ({ ...base, query: [...base.query, pair] })),
      fc.constant({ ...base, masquerade: !base.masquerade }),
    ];
    if (pathParams.length > 0) {
      breakages.push(
        fc
          .tuple(
            fc.constantFrom(...pathParams.map((parameter) => parameter.name)),
            fc.constantFrom(...HOSTILE_IDS),
          )
          .map(([name, id]) => ({ ...base, pathParams: { ...base.pathParams, [name]: id } })),
      );
    }
    if (queryParams.length > 0) {
      breakages.push(
        fc
          .tuple(
            fc.constantFrom(...queryParams.map((parameter) => parameter.name)),
            fc.constantFrom(...HOSTILE_STRINGS),
          )
          .map(([name, value]) => ({
            ...base,
            query: [...base.query.filter(([key]) => key !== name), [name, value]],
          })),
        // The same parameter twice: one value or an error, never both silently.
        fc.constantFrom(...queryParams.map((parameter) => parameter.name)).map((name) => ({
          ...base,
          query: [...base.query, [name, 'a'], [name, 'b']] as [string, string][],
        })),
      );
    }
    if (takesBody) {
      const parsed = base.body === undefined ? undefined : (JSON.parse(base.body.toString()) as unknown);
      if (jsonSchema)
        breakages.push(mutate(parsed).map((value) => ({ ...base, body: JSON.stringify(value) ?? 'null' })));
      breakages.push(rawHostileBody.map((body) => ({ ...base, body })));
      breakages.push(
        fc
          .constantFrom('text/plain', 'application/pdf', 'application/x-www-form-urlencoded')
          .map((contentType) => ({
            ...base,
            body: base.body ?? '{}',
            contentType,
          })),
      );
    }
    return fc.oneof(...breakages);
  });
}

function caseFor(route: Route): fc.Arbitrary<FuzzCase> {
  return fc.oneof(
    { weight: 2, arbitrary: wellFormedCase(route) },
    { weight: 3, arbitrary: brokenCase(route) },
  );
}

function pathOf(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? 'x'));
}

let digestQuery: string | undefined;

/**
 * One digest per table (md5 of its rows in a fixed order), computed by PostgreSQL in one round
 * trip: as strict as comparing whole snapshots, cheap enough to run after every one of a hundred
 * thousand requests. A mismatch names the tables that changed.
 */
async function stateOf(): Promise<Record<string, string>> {
  if (!digestQuery) {
    const tables = Object.keys(await snapshotTables(t.database.db, MAY_CHANGE));
    digestQuery = tables
      .map((table) => {
        // A key's "last used" moves off the request path whatever the request's fate.
        const skipped = BOOKKEEPING_COLUMNS[table] ?? [];
        const row =
          skipped.length === 0 ? 'r::text' : `(to_jsonb(r) - ARRAY['${skipped.join("','")}'])::text`;
        return `SELECT '${table}' AS name, md5(coalesce(string_agg(${row}, '|' ORDER BY ${row}), '')) AS digest FROM "${table}" r`;
      })
      .join(' UNION ALL ');
  }
  const { rows } = await t.database.db.query<{ name: string; digest: string }>(digestQuery);
  return Object.fromEntries(rows.map((row) => [row.name, row.digest]));
}

describe('schema-driven fuzzing of every route in /openapi.json', () => {
  it(
    `answers ${RUNS} generated and hostile requests per route without a fault, with the envelope, changing nothing when refused`,
    async () => {
      expect(routes.length).toBeGreaterThan(30);
      let before = await stateOf();
      const failures: string[] = [];
      const statuses = new Map<string, number>();
      for (const route of routes) {
        await fc.assert(
          fc.asyncProperty(caseFor(route), async (input) => {
            const query = [...input.query];
            if (input.masquerade) query.push(['masqueradeAs', `user:${fixture.userId}`]);
            const path = pathOf(route.template, input.pathParams);
            const answer = await send(
              t,
              fixture.partner,
              route.method,
              path,
              query,
              input.body,
              input.contentType,
              route.template,
            );
            const where = `${route.method} ${route.template} → ${answer.status}`;
            statuses.set(where, (statuses.get(where) ?? 0) + 1);
            if (process.env.FUZZ_VERBOSE === '2')
              console.log(
                where,
                JSON.stringify(query),
                String(input.body).slice(0, 100),
                answer.text.slice(0, 200),
              );
            if (answer.status >= 500) failures.push(`${where}: ${answer.text.slice(0, 300)}`);
            if (answer.status >= 400 && !isHtmlRoute(route.template)) {
              expect(answer.contentType, where).toMatch(/^application\/json/);
              const envelope = JSON.parse(answer.text) as { type: string };
              expectEnvelope(envelope, envelope.type, {
                transient: answer.status >= 500 || answer.status === 429 || answer.status === 503,
              });
            }
            const after = await stateOf();
            if (answer.status >= 400) expect(after, `${where} changed the database`).toEqual(before);
            before = after;
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
        // The operator routes may have switched the fixture's Users API off: later routes need it on.
        await fetch(`${t.baseUrl}/operator/v1/accounts/${fixture.partner.accountId}/users-api`, {
          method: 'POST',
          headers: { ...operatorHeaders(), 'content-type': 'application/json' },
          body: JSON.stringify({ enabled: true }),
        });
        before = await stateOf();
      }
      if (process.env.FUZZ_VERBOSE)
        console.log([...statuses].map(([key, count]) => `${count} × ${key}`).join('\n'));
      expect(failures).toEqual([]);
    },
    Math.max(600_000, RUNS * 100 * 50),
  );

  it('answers header injection, duplicated parameters and traversal on the raw socket with the envelope', async () => {
    const port = portOf(t.baseUrl);
    const before = await stateOf();
    const requests = [
      `GET /v3/rates?as=DIVISOR&as=MULTIPLIER HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /v3/accounts/..%2F..%2Fetc%2Fpasswd HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /v3/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /v3/rates HTTP/1.1\r\nHost: x\r\nX-Api-Key: a\r\n b\r\n\r\n`,
      `GET /v3/rates HTTP/1.1\r\nHost: x\r\nX-Api-Key: a\rInjected: 1\r\n\r\n`,
      `POST /v3/transfers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      `GET /v3/accounts/%00 HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /v3/transfers/TF_${'X'.repeat(300)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ];
    for (const request of requests) {
      const answer = await rawRequest(port, [request]);
      expect(answer.status, request).toBeGreaterThanOrEqual(400);
      expect(answer.status, request).toBeLessThan(500);
      expectEnvelope(JSON.parse(answer.body.toString('utf8')), expect.any(String) as unknown as string);
    }
    expect(await stateOf()).toEqual(before);
  });
});
