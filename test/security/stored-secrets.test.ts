import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  operatorHeaders,
  startTestApp,
  TEST_MASTER_KEY,
  TEST_OPERATOR_TOKEN,
  type TestApp,
} from '../helpers/app.ts';
import { bearerFetch, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';

/**
 * Answers stored for Idempotency-Key replays never hold a secret in clear: after every call whose
 * answer carries one, a pg_dump of the database (what a backup or a stolen disk shows) contains
 * none of them in any encoding, while each replay still answers the original bytes. And an
 * idempotency key belongs to the API key that used it: another key of the same account, or anyone
 * after the key is deleted, never reads what it stored.
 */

/** The non-GET routes whose answer schema names a secret; each is called below with an Idempotency-Key. */
const SECRET_ROUTES = [
  'POST /operator/v1/accounts',
  'POST /operator/v1/accounts/{accountId}/api-keys',
  'POST /v2/apiKeys',
];

/** Debian's PostgreSQL 15 client, for the PostgreSQL 15 server the tests run on (another server fails the test). */
const PG_DUMP = '/usr/lib/postgresql/15/bin/pg_dump';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** Every answer of a call made through callAndReplay. */
const answers: string[] = [];
const idempotencyKey = () => `idem-${randomBytes(8).toString('hex')}`;

interface Call {
  response: Response;
  text: string;
}

async function call(send: () => Promise<Response>): Promise<Call> {
  const response = await send();
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { response, text };
}

function operatorPost(path: string, body: unknown, key: string) {
  return fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: { ...operatorHeaders(), 'idempotency-key': key },
    body: JSON.stringify(body),
  });
}

/** The call, then the same call again: the replay must be the original bytes, marked as such. */
async function callAndReplay(send: () => Promise<Response>): Promise<Record<string, unknown>> {
  const first = await call(send);
  expect(first.response.headers.get('idempotency-replayed')).toBeNull();
  const again = await call(send);
  expect(again.response.headers.get('idempotency-replayed')).toBe('true');
  expect(again.text).toBe(first.text);
  answers.push(first.text);
  return JSON.parse(first.text) as Record<string, unknown>;
}

/** Every way a secret could sit in a dump: as sent, JSON-escaped, URL-encoded, hex (bytea), base64. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    bytes.toString('hex'),
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
  ];
}

async function pgDump(): Promise<string> {
  // No skip: a pg_dump that cannot run or cannot talk to the server fails this test.
  const { stdout } = await promisify(execFile)(PG_DUMP, ['--no-owner', '--dbname', t.database.url], {
    maxBuffer: 512 * 1024 * 1024,
  });
  expect(stdout).toContain('CREATE TABLE public.idempotency_keys');
  expect(stdout).toContain('COPY public.idempotency_keys');
  return stdout;
}

describe('secret-bearing answers at rest', () => {
  it('lists the routes whose answer carries a secret (a new one must be sealed and tested here)', async () => {
    const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>
      >;
      components: { schemas: Record<string, unknown> };
    };
    const namesSecret = (schema: unknown, seen = new Set<unknown>()): boolean => {
      if (schema === null || typeof schema !== 'object' || seen.has(schema)) return false;
      seen.add(schema);
      const node = schema as Record<string, unknown>;
      const ref = typeof node.$ref === 'string' ? node.$ref.split('/').at(-1) : undefined;
      if (ref && namesSecret(document.components.schemas[ref], seen)) return true;
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      if (Object.keys(properties).some((name) => /secret|token/i.test(name))) return true;
      return Object.values(node).some((child) => namesSecret(child, seen));
    };
    const found = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'get' && method !== 'head')
        .filter(([, operation]) =>
          Object.entries(operation.responses ?? {}).some(
            ([status, answer]) =>
              status.startsWith('2') && namesSecret(answer.content?.['application/json']?.schema),
          ),
        )
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(found.sort()).toEqual(SECRET_ROUTES);
  });

  it('a pg_dump after every secret-bearing call holds none of the secrets; replays still answer them', async () => {
    const master = await callAndReplay(() =>
      operatorPost('/operator/v1/accounts', { name: 'Dumped partner', country: 'US' }, 'create-master'),
    );
    const partner = master as unknown as PartnerCredentials & { webhookSecret: string };
    const sub = (await (
      await signedFetch(t, partner, {
        method: 'POST',
        path: '/v3/accounts',
        body: JSON.stringify({ type: 'INDIVIDUAL', country: 'US', subaccount: true }),
      })
    ).json()) as { id: string };

    const signedKeyBody = JSON.stringify({ desc: 'signed', type: 'FULL' });
    const signedKeyIdem = idempotencyKey();
    const signedKey = await callAndReplay(() =>
      signedFetch(t, partner, {
        method: 'POST',
        path: '/v2/apiKeys',
        body: signedKeyBody,
        headers: { 'idempotency-key': signedKeyIdem },
      }),
    );
    const bearerKeyIdem = idempotencyKey();
    const bearerKey = await callAndReplay(() =>
      fetch(`${t.baseUrl}/v2/apiKeys`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${partner.secretKey}`,
          'content-type': 'application/json',
          'idempotency-key': bearerKeyIdem,
        },
        body: JSON.stringify({ desc: 'bearer', type: 'READONLY' }),
      }),
    );
    const subKeyIdem = idempotencyKey();
    const subKey = await callAndReplay(() =>
      signedFetch(t, partner, {
        method: 'POST',
        path: `/v2/apiKeys?masqueradeAs=${sub.id}`,
        body: '{"desc":"for the sub-account"}',
        headers: { 'idempotency-key': subKeyIdem },
      }),
    );
    const operatorKey = await callAndReplay(() =>
      operatorPost(`/operator/v1/accounts/${partner.accountId}/api-keys`, { desc: 'replacement' }, 'op-key'),
    );

    // Decentralized sessions: the secret in the body, and in the query; then the session's account.
    const bodySession = randomBytes(24).toString('base64url');
    await callAndReplay(() =>
      fetch(`${t.baseUrl}/v2/sessions/auth/key`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'session-body' },
        body: JSON.stringify({ secretKey: bodySession }),
      }),
    );
    const querySession = randomBytes(24).toString('hex');
    await callAndReplay(() =>
      fetch(`${t.baseUrl}/v2/sessions/auth/key?secretKey=${querySession}`, {
        method: 'POST',
        headers: { 'idempotency-key': 'session-query' },
      }),
    );
    await callAndReplay(() =>
      fetch(`${t.baseUrl}/v3/accounts`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${bodySession}`,
          'content-type': 'application/json',
          'idempotency-key': 'session-account',
        },
        body: JSON.stringify({ type: 'INDIVIDUAL', country: 'US' }),
      }),
    );
    // The signing secret is read with a GET (never stored); it is the one created above.
    const signing = await call(() =>
      bearerFetch(t, partner.secretKey, 'GET', '/v3/subscriptions/signingSecret'),
    );
    expect(JSON.parse(signing.text)).toEqual({ webhookSecret: partner.webhookSecret });

    const secrets: Record<string, string> = {
      'partner secretKey': partner.secretKey,
      webhookSecret: partner.webhookSecret,
      'signed key secretKey': signedKey.secretKey as string,
      'bearer key secretKey': bearerKey.secretKey as string,
      'sub-account key secretKey': subKey.secretKey as string,
      "operator's key secretKey": operatorKey.secretKey as string,
      'session secret (body)': bodySession,
      'session secret (query)': querySession,
      'operator token': TEST_OPERATOR_TOKEN,
      'master key': TEST_MASTER_KEY,
    };
    for (const value of Object.values(secrets)) expect(value.length).toBeGreaterThanOrEqual(25);

    const dump = await pgDump();
    const lowerDump = dump.toLowerCase();
    for (const [name, secret] of Object.entries(secrets)) {
      for (const form of encodings(secret)) {
        expect(dump.includes(form), `the dump holds the ${name} (${form.slice(0, 8)}…)`).toBe(false);
        expect(lowerDump.includes(form.toLowerCase()), `the dump holds the ${name} in some case`).toBe(false);
      }
    }
    // The answers with a secret are not kept as sent; each is a sealed box of its own.
    for (const answer of answers.filter((text) => text.includes('"secretKey"'))) {
      expect(dump.includes(answer)).toBe(false);
      expect(dump.includes(JSON.stringify(answer).slice(1, -1))).toBe(false);
    }
    const { rows } = await t.database.db.query<{ scope: string; clear: boolean; sealed: boolean }>(
      `SELECT scope, response_body IS NOT NULL AS clear, response_sealed IS NOT NULL AS sealed FROM idempotency_keys`,
    );
    const secretRows = rows.filter((row) => SECRET_ROUTES.some((route) => scopeRoute(row.scope) === route));
    expect(secretRows).toHaveLength(5);
    for (const row of secretRows) expect(row).toMatchObject({ clear: false, sealed: true });
    // Answers without a secret stay as they were (sessions, accounts).
    expect(rows.filter((row) => row.clear)).toHaveLength(rows.length - 5);
  });
});

/** `<caller> POST /v2/apiKeys` → 'POST /v2/apiKeys' (templates as OpenAPI writes them). */
function scopeRoute(scope: string): string {
  const [method = '', route = ''] = scope.split(' ').slice(-2);
  return `${method} ${route.replace(/:(\w+)/g, '{$1}')}`;
}

describe('Idempotency-Key scope: the calling API key', () => {
  let partner: PartnerCredentials;
  let second: PartnerCredentials;
  beforeAll(async () => {
    partner = (await (
      await operatorPost('/operator/v1/accounts', { name: 'Scoped partner', country: 'US' }, idempotencyKey())
    ).json()) as PartnerCredentials;
    const created = (await (
      await signedFetch(t, partner, { method: 'POST', path: '/v2/apiKeys', body: '{"desc":"second"}' })
    ).json()) as { apiKey: string; secretKey: string };
    second = { accountId: partner.accountId, apiKey: created.apiKey, secretKey: created.secretKey };
  });

  const createKey = (creds: PartnerCredentials, key: string) =>
    signedFetch(t, creds, {
      method: 'POST',
      path: '/v2/apiKeys',
      body: '{"desc":"twin"}',
      headers: { 'idempotency-key': key },
    });

  it("another key of the same account never replays this key's answer, before or after its deletion", async () => {
    const key = idempotencyKey();
    const first = await call(() => createKey(partner, key));
    const firstKey = JSON.parse(first.text) as { apiKey: string; secretKey: string };

    // The same Idempotency-Key and body from the account's other key: its own key-space, so it runs.
    const other = await call(() => createKey(second, key));
    expect(other.response.headers.get('idempotency-replayed')).toBeNull();
    expect(other.text).not.toContain(firstKey.secretKey);
    const otherKey = JSON.parse(other.text) as { apiKey: string };
    expect(otherKey.apiKey).not.toBe(firstKey.apiKey);

    // The first key still replays its own answer.
    const replay = await call(() => createKey(partner, key));
    expect(replay.response.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);

    // Once the first key is deleted, nobody reaches its answer: it cannot authenticate, and the
    // other key replays only its own.
    expect((await bearerFetch(t, second.secretKey, 'DELETE', `/v2/apiKey/${partner.apiKey}`)).status).toBe(
      200,
    );
    expect((await createKey(partner, key)).status).toBe(401);
    const afterDelete = await call(() => createKey(second, key));
    expect(afterDelete.response.headers.get('idempotency-replayed')).toBe('true');
    expect(afterDelete.text).toBe(other.text);
    expect(afterDelete.text).not.toContain(firstKey.secretKey);
  });

  it('still replays an answer stored under the account-wide scope before migration 031', async () => {
    const body = JSON.stringify({ type: 'INDIVIDUAL', country: 'US', subaccount: true });
    const stored = '{"id":"AC_STOREDBEFORE","stored":"before the upgrade"}';
    await t.database.db.query(
      `INSERT INTO idempotency_keys (scope, key, request_hash, response_status, response_body, expires_at)
       VALUES ($1, 'before-031', $2, 200, $3, now() + interval '1 hour')`,
      [
        `${second.accountId}>${second.accountId} POST /v3/accounts`,
        createHash('sha256').update(`POST /v3/accounts?\n${body}`).digest('hex'),
        stored,
      ],
    );
    const replay = await call(() =>
      signedFetch(t, second, {
        method: 'POST',
        path: '/v3/accounts',
        body,
        headers: { 'idempotency-key': 'before-031' },
      }),
    );
    expect(replay.response.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.text).toBe(stored);
  });
});
