import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COERCE_KEYWORD } from '../../src/platform/http/wyre-types.ts';
import { ID_ALPHABET } from '../../src/platform/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { isHtmlRoute, isPublicRoute } from '../helpers/routes.ts';

/**
 * The published contract must describe every route a partner or operator can call: a test
 * fails the moment a route is added without its description, success and error answers,
 * request schema, auth scheme, or a valid example of its JSON request and answer. Problems are
 * collected and reported together.
 */
type Schema = Record<string, unknown>;
interface Media {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
  security?: Record<string, unknown>[];
  parameters?: { in: string; name: string }[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** A description says what the route does, who may call it and what it refuses: more than a label. */
const MIN_DESCRIPTION_LENGTH = 60;
const JSON_MEDIA = 'application/json';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
// OpenAPI 3.1 schemas are JSON Schema 2020-12. Strict: a schema keyword Ajv does not know fails
// here instead of being silently skipped.
const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
// Rampart's own keyword, naming a coercion its validator performs (wyre-types.ts).
ajv.addKeyword({ keyword: COERCE_KEYWORD, schemaType: 'string' });

/**
 * The schema with every object closed (no additionalProperties given → false): a response schema
 * documents without filtering, so an example with a misspelt or invented field would otherwise pass.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    // `examples` and `const`/`enum` hold data, not schemas.
    out[key] = ['examples', 'const', 'enum', 'default'].includes(key) ? value : closed(value);
  }
  const open = out.additionalProperties === undefined && out.patternProperties === undefined;
  if (out.properties && open) out.additionalProperties = false;
  return out;
}

/** Every example a media type carries: its `example`, its named `examples`, its schema's `examples`. */
function examplesOf(media: Media): unknown[] {
  const found: unknown[] = [];
  if (media.example !== undefined) found.push(media.example);
  for (const named of Object.values(media.examples ?? {})) found.push(named.value);
  const fromSchema = media.schema?.examples;
  if (Array.isArray(fromSchema)) found.push(...fromSchema);
  return found;
}

const ID_IN_TEXT = /\b(?:AC|US|TF|WO|DA|PA|PT|DO|CB|JB|TR)_[0-9A-Za-z]*/g;
const ID = new RegExp(`^[A-Z]{2}_[${ID_ALPHABET}]{11}$`);
const RESERVATION = new RegExp(`^[${ID_ALPHABET}]{20}$`);

/** Ids in an example that are not in our formats (ids.ts): prefixed ids anywhere, reservations by key. */
function badIds(value: unknown, key = ''): string[] {
  if (typeof value === 'string') {
    const bad = [...value.matchAll(ID_IN_TEXT)].map(([id]) => id).filter((id) => !ID.test(id));
    if (/^reservation(Id)?$/.test(key) && !RESERVATION.test(value)) bad.push(value);
    return bad;
  }
  if (Array.isArray(value)) return value.flatMap((item) => badIds(item));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([name, item]) => badIds(item, name));
  }
  return [];
}

/** Problems of one JSON media type: no example, or an example its own schema refuses. */
function exampleProblems(where: string, media: Media): string[] {
  const examples = examplesOf(media);
  if (examples.length === 0) return [`${where}: no example`];
  const problems: string[] = [];
  const validate = ajv.compile(closed(media.schema ?? {}) as Schema);
  for (const example of examples) {
    if (!validate(example)) problems.push(`${where}: example invalid: ${ajv.errorsText(validate.errors)}`);
    const ids = badIds(example);
    if (ids.length > 0) problems.push(`${where}: example ids not in our formats: ${ids.join(', ')}`);
  }
  return problems;
}

function describedProblems(where: string, operation: Operation): string[] {
  const { summary, description } = operation;
  if (!summary && !description) return [`${where}: no summary or description`];
  if (!description) return [`${where}: no description`];
  if (description === summary || description.length < MIN_DESCRIPTION_LENGTH) {
    return [`${where}: description is only a label (${description.length} characters)`];
  }
  return [];
}

function problemsOf(path: string, method: string, operation: Operation): string[] {
  const problems: string[] = [];
  const where = `${method.toUpperCase()} ${path}`;
  problems.push(...describedProblems(where, operation));
  if (!operation.tags?.length) problems.push(`${where}: no tag`);
  const statuses = Object.keys(operation.responses ?? {});
  const success = statuses.filter((status) => /^[23]/.test(status));
  if (success.length === 0) problems.push(`${where}: no success response`);
  if (!isHtmlRoute(path) && !statuses.some((status) => /^[45]/.test(status))) {
    problems.push(`${where}: no error responses`);
  }
  for (const status of success) {
    if (status === '204' || /^3/.test(status) || isHtmlRoute(path)) continue;
    const content = operation.responses?.[status]?.content;
    if (!content) problems.push(`${where}: ${status} has no schema`);
    else if (content[JSON_MEDIA])
      problems.push(...exampleProblems(`${where} ${status}`, content[JSON_MEDIA]));
  }
  if ((method === 'post' || method === 'put') && !operation.requestBody && !isHtmlRoute(path)) {
    // A POST that takes nothing still says so: its body schema is an empty object.
    problems.push(`${where}: no request body schema`);
  }
  const jsonBody = operation.requestBody?.content?.[JSON_MEDIA];
  if (jsonBody) problems.push(...exampleProblems(`${where} request`, jsonBody));
  const operatorRoute = path.startsWith('/operator/');
  const needsSecurity = operatorRoute || !(isPublicRoute(path) || isHtmlRoute(path));
  if (needsSecurity && !operation.security?.length) problems.push(`${where}: no security requirement`);
  return problems;
}

let t: TestApp;
let document: Document;
beforeAll(async () => {
  t = await startTestApp();
  document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as Document;
});
afterAll(async () => t.close());

describe('/openapi.json completeness', () => {
  it('describes every route with a description, tag, schemas, valid examples, errors and auth', () => {
    const problems: string[] = [];
    let operations = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        operations += 1;
        problems.push(...problemsOf(path, method, operation));
      }
    }
    expect(operations).toBeGreaterThan(50);
    expect(problems).toEqual([]);
  });

  it('shows a valid example of the error envelope every error answer refers to', () => {
    const envelope = document.components.schemas.ErrorEnvelope;
    expect(envelope).toBeDefined();
    // Components keep their `examples` array; checked here as a media type would carry it.
    const { examples, ...schema } = envelope as Schema & { examples?: unknown[] };
    expect(exampleProblems('ErrorEnvelope', { schema, example: examples?.[0] })).toEqual([]);
  });
});

describe('the example checks themselves', () => {
  const schema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };

  it('refuses a missing example, an invented field, a wrong type and an id outside our formats', () => {
    expect(exampleProblems('x', { schema })).toEqual(['x: no example']);
    expect(exampleProblems('x', { schema, example: { id: 'TF_QA9GMG3GAWV', extra: 1 } })[0]).toMatch(
      /must NOT have additional properties/,
    );
    expect(exampleProblems('x', { schema, example: { id: 5 } })[0]).toMatch(/must be string/);
    expect(exampleProblems('x', { schema, example: { id: 'TF_QA9GMG3GAW0' } })).toEqual([
      'x: example ids not in our formats: TF_QA9GMG3GAW0',
    ]);
    expect(badIds({ reservation: 'SHORT' })).toEqual(['SHORT']);
  });

  it('accepts an example wherever OpenAPI 3.1 puts it', () => {
    const value = { id: 'user:US_QYAFJ98CQP7' };
    expect(exampleProblems('x', { schema, example: value })).toEqual([]);
    expect(exampleProblems('x', { schema, examples: { one: { value } } })).toEqual([]);
    expect(exampleProblems('x', { schema: { ...schema, examples: [value] } })).toEqual([]);
  });
});
