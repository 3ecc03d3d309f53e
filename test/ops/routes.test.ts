import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    extend: (app) => {
      app.get('/probe/items/:itemId', async () => ({ ok: true }));
    },
  });
});
afterAll(async () => t.close());

describe('/healthz and /readyz', () => {
  it('answers /healthz 200', async () => {
    const response = await fetch(`${t.baseUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz 200 on a migrated database', async () => {
    const response = await fetch(`${t.baseUrl}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready' });
  });

  it('answers /readyz 503 (transient envelope) while the latest migration is missing, 200 again once it is back', async () => {
    const { rows } = await t.database.db.query<{ version: string; name: string; applied_at: Date }>(
      'SELECT version, name, applied_at FROM schema_migrations ORDER BY version DESC LIMIT 1',
    );
    const latest = rows[0]!;
    await t.database.db.query('DELETE FROM schema_migrations WHERE version = $1', [latest.version]);
    try {
      await expectEnvelopeResponse(await fetch(`${t.baseUrl}/readyz`), 503, 'ServiceUnavailableException', {
        errorCode: 'service.notReady',
        transient: true,
      });
      // The process itself is fine.
      expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await t.database.db.query(
        'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
        [latest.version, latest.name, latest.applied_at],
      );
    }
    expect((await fetch(`${t.baseUrl}/readyz`)).status).toBe(200);
  });

  it('answers /readyz 503 when the schema_migrations table is gone', async () => {
    await t.database.db.query('ALTER TABLE schema_migrations RENAME TO schema_migrations_away');
    try {
      await expectEnvelopeResponse(await fetch(`${t.baseUrl}/readyz`), 503, 'ServiceUnavailableException', {
        transient: true,
      });
    } finally {
      await t.database.db.query('ALTER TABLE schema_migrations_away RENAME TO schema_migrations');
    }
  });
});

describe('/metrics', () => {
  it('counts requests per route template with pool statistics', async () => {
    await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: '{"advanceSeconds":60}',
    });
    await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: '{}',
    });
    await fetch(`${t.baseUrl}/probe/items/AC_RAWIDVALUE1`);
    await fetch(`${t.baseUrl}/probe/items/AC_RAWIDVALUE2`);
    await fetch(`${t.baseUrl}/no/such/ROUTE_RAW_PATH_X`);

    const response = await fetch(`${t.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    const counter = (labels: string) =>
      new RegExp(`^rampart_http_requests_total\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1];

    expect(counter('method="POST",route="/operator/v1/sandbox/clock",status="200"')).toBe('1');
    expect(counter('method="POST",route="/operator/v1/sandbox/clock",status="400"')).toBe('1');
    expect(counter('method="GET",route="/probe/items/:itemId",status="200"')).toBe('2');
    expect(text).toMatch(
      /^rampart_http_request_duration_seconds_count\{method="POST",route="\/operator\/v1\/sandbox\/clock",status="200"\} 1$/m,
    );
    expect(text).toMatch(
      /^rampart_http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/probe\/items\/:itemId",status="200"\} \d+$/m,
    );
    // Raw URLs never become labels (cardinality, and ids in paths).
    expect(text).not.toContain('RAWIDVALUE');
    expect(text).not.toContain('ROUTE_RAW_PATH_X');
    expect(counter('method="GET",route="unmatched",status="404"')).toBe('1');

    expect(text).toMatch(/^rampart_db_pool_total \d+$/m);
    expect(text).toMatch(/^rampart_db_pool_idle \d+$/m);
    expect(text).toMatch(/^rampart_db_pool_waiting \d+$/m);
    expect(Number(/^rampart_db_pool_total (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
  });
});

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}
interface Operation {
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }>; required?: boolean };
  responses: Record<
    string,
    { description?: string; content?: Record<string, { schema: Record<string, unknown> }> }
  >;
  security?: Record<string, unknown>[];
}

function collectRefs(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) {
      if (key === '$ref' && typeof member === 'string') into.push(member);
      else collectRefs(member, into);
    }
  }
  return into;
}

function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const part of ref.slice(2).split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

describe('/openapi.json and /docs', () => {
  it('is an OpenAPI 3.1 document with the operator clock, its request schema and its error answers', async () => {
    const response = await fetch(`${t.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as OpenApiDocument;
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.title).toEqual(expect.any(String));
    expect(document.info.version).toEqual(expect.any(String));

    // Structurally sound: every operation has responses, every $ref points at something.
    const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
    for (const [path, item] of Object.entries(document.paths)) {
      expect(path.startsWith('/')).toBe(true);
      for (const [method, operation] of Object.entries(item)) {
        if (!methods.includes(method)) continue;
        expect(Object.keys(operation.responses ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
    for (const ref of collectRefs(document)) {
      expect(resolvePointer(document, ref), ref).toBeDefined();
    }

    const clock = document.paths['/operator/v1/sandbox/clock']?.post;
    expect(clock).toBeDefined();
    const bodySchema = clock!.requestBody!.content['application/json']!.schema as {
      type: string;
      required: string[];
      properties: Record<string, { type: string; minimum?: number }>;
      additionalProperties: boolean;
    };
    expect(bodySchema).toMatchObject({
      type: 'object',
      required: ['advanceSeconds'],
      additionalProperties: false,
      properties: { advanceSeconds: { type: 'integer', minimum: 1 } },
    });
    expect(clock!.security).toEqual([{ operatorToken: [] }]);
    expect(document.components.securitySchemes?.operatorToken).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(Object.keys(clock!.responses).sort()).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '500']),
    );
    for (const status of ['400', '401', '403', '500']) {
      const schema = clock!.responses[status]!.content!['application/json']!.schema;
      const resolved = (typeof schema.$ref === 'string' ? resolvePointer(document, schema.$ref) : schema) as {
        properties: Record<string, unknown>;
        required: string[];
      };
      expect(Object.keys(resolved.properties)).toEqual(
        expect.arrayContaining([
          'exceptionId',
          'errorCode',
          'message',
          'type',
          'transient',
          'problematicField',
        ]),
      );
      expect(resolved.required).toEqual(expect.arrayContaining(['exceptionId', 'type', 'transient']));
    }
    // Internal routes stay out of the document.
    expect(document.paths['/metrics']).toBeUndefined();
    expect(document.paths['/openapi.json']).toBeUndefined();
    expect(document.paths['/healthz']?.get).toBeDefined();
  });

  it('renders /docs as HTML', async () => {
    const response = await fetch(`${t.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/<html/i);
    expect(html.toLowerCase()).toContain('swagger');
  });
});
