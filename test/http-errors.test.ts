import http from 'node:http';
import { Type } from 'typebox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { en } from '../src/web/messages/en.ts';
import { operatorHeaders, startTestApp, type TestApp } from './helpers/app.ts';
import { snapshotTables } from './helpers/db.ts';
import { expectEnvelope, expectEnvelopeResponse, portOf, rawRequest } from './helpers/http.ts';
import { createPartner, type PartnerCredentials, signedFetch } from './helpers/partner.ts';

let t: TestApp;
let port: number;
let before: Record<string, unknown[]>;

const INTERNAL_DETAIL = 'kaboom: password=hunter2 host=db.internal';

beforeAll(async () => {
  t = await startTestApp({
    extend: (app) => {
      app.get('/probe/boom', async () => {
        throw new Error(INTERNAL_DETAIL);
      });
      app.get('/probe/throw-null', async () => {
        throw null;
      });
      app.get('/probe/reject-undefined', () => Promise.reject(undefined));
      app.post(
        '/probe/echo',
        { schema: { body: Type.Object({ name: Type.String() }, { additionalProperties: false }) } },
        async (request) => request.body,
      );
    },
  });
  port = portOf(t.baseUrl);
});
afterAll(async () => t.close());

beforeEach(async () => {
  before = await snapshotTables(t.database.db);
});

// Every rejection leaves the process serving and the database as it was.
afterEach(async () => {
  const health = await fetch(`${t.baseUrl}/healthz`);
  expect(health.status).toBe(200);
  expect(await snapshotTables(t.database.db)).toEqual(before);
  expect(t.ctx.clock.currentOffsetMs()).toBe(0);
});

const clockUrl = () => `${t.baseUrl}/operator/v1/sandbox/clock`;

function postClock(
  body: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string> = operatorHeaders(),
) {
  return fetch(clockUrl(), { method: 'POST', headers, body });
}

function rawPost(path: string, headers: Record<string, string>, body: Buffer | string) {
  const head = Object.entries({ host: 'localhost', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return rawRequest(port, [`POST ${path} HTTP/1.1\r\n${head}\r\n`, body]);
}

describe('routing', () => {
  it('answers an unknown route with a 404 envelope', async () => {
    await expectEnvelopeResponse(await fetch(`${t.baseUrl}/v3/nothing-here`), 404, 'NotFoundException', {
      errorCode: 'notFound',
    });
    await expectEnvelopeResponse(
      await fetch(`${t.baseUrl}/v3/nothing-here`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      404,
      'NotFoundException',
    );
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await fetch(`${t.baseUrl}/healthz`, { method: 'DELETE' });
    expect(response.headers.get('allow')).toBe('GET');
    await expectEnvelopeResponse(response, 405, 'MethodNotAllowedException');

    const put = await fetch(clockUrl(), {
      method: 'PUT',
      headers: operatorHeaders(),
      body: '{"advanceSeconds":1}',
    });
    expect(
      put.headers
        .get('allow')
        ?.split(',')
        .map((method) => method.trim())
        .sort(),
    ).toEqual(['GET', 'POST']);
    await expectEnvelopeResponse(put, 405, 'MethodNotAllowedException');
  });

  it('answers a path with broken percent-encoding with a 400 envelope, not Fastify’s shape', async () => {
    for (const path of ['/healthz%zz', '/%E0%A4%A']) {
      await expectEnvelopeResponse(await fetch(`${t.baseUrl}${path}`), 400, 'ValidationException', {
        errorCode: 'validation.badUrl',
      });
    }
  });
});

describe('request bodies', () => {
  it('refuses U+0000 and unpaired surrogates, which PostgreSQL cannot store, naming the field (400, nothing stored)', async () => {
    const before = await snapshotTables(t.database.db);
    for (const [name, field] of [
      ['"a\\u0000b"', 'name'],
      ['"\\ud800"', 'name'],
      ['"x\\udfffy"', 'name'],
    ] as const) {
      const response = await fetch(`${t.baseUrl}/operator/v1/accounts`, {
        method: 'POST',
        headers: operatorHeaders(),
        body: `{"name":${name},"country":"US","usersApi":false}`,
      });
      await expectEnvelopeResponse(response, 400, 'ValidationException', {
        errorCode: 'validation.invalidCharacter',
        problematicField: field,
      });
    }
    expect(await snapshotTables(t.database.db)).toEqual(before);
  });

  it('answers malformed JSON with 400 JsonFormatException', async () => {
    for (const body of ['{"advanceSeconds":', '{advanceSeconds: 1}', 'nope', '{"a":1}}']) {
      await expectEnvelopeResponse(await postClock(body), 400, 'JsonFormatException', {
        errorCode: 'validation.jsonFormat',
      });
    }
  });

  const tenMegabytes = 10 * 1024 * 1024;
  function* bigJson(size: number, chunked: boolean) {
    const prefix = Buffer.from('{"name":"');
    const suffix = Buffer.from('"}');
    const fill = Buffer.alloc(64 * 1024, 'x');
    const frame = (piece: Buffer) =>
      chunked
        ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
        : piece;
    yield frame(prefix);
    let left = size - prefix.length - suffix.length;
    while (left > 0) {
      const piece = fill.subarray(0, Math.min(fill.length, left));
      left -= piece.length;
      yield frame(piece);
    }
    yield frame(suffix);
    if (chunked) yield Buffer.from('0\r\n\r\n');
  }

  it('answers a 10 MB JSON body with 413 PayloadTooLargeException (declared length)', async () => {
    const head =
      'POST /probe/echo HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n' +
      `content-length: ${tenMegabytes}\r\n\r\n`;
    const response = await rawRequest(port, [head, ...bigJson(tenMegabytes, false)]);
    expect(response.status).toBe(413);
    expectEnvelope(response.json, 'PayloadTooLargeException', { errorCode: 'validation.payloadTooLarge' });
  });

  it('answers a 10 MB chunked JSON body with 413 (length counted while reading)', async () => {
    const head =
      'POST /operator/v1/sandbox/clock HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n' +
      `authorization: ${operatorHeaders().authorization}\r\ntransfer-encoding: chunked\r\n\r\n`;
    const response = await rawRequest(port, [head, ...bigJson(tenMegabytes, true)]);
    expect(response.status).toBe(413);
    expectEnvelope(response.json, 'PayloadTooLargeException');
  });

  it('reads a body just under the limit (the limit is the configured one, not lower)', async () => {
    const size = t.ctx.config.bodyLimitBytes - 100;
    const body = Buffer.concat([...bigJson(size, false)]);
    const response = await fetch(`${t.baseUrl}/probe/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(body),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { name: string }).name).toHaveLength(size - 11);
  });

  it('refuses a body on GET with 400', async () => {
    const withLength = await rawRequest(port, [
      'GET /healthz HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 7\r\n\r\n{"a":1}',
    ]);
    expect(withLength.status).toBe(400);
    expectEnvelope(withLength.json, 'ValidationException', { errorCode: 'validation.bodyNotAllowed' });

    const chunked = await rawRequest(port, [
      'GET /healthz HTTP/1.1\r\nhost: localhost\r\ntransfer-encoding: chunked\r\n\r\n7\r\n{"a":1}\r\n0\r\n\r\n',
    ]);
    expect(chunked.status).toBe(400);
    expectEnvelope(chunked.json, 'ValidationException', { errorCode: 'validation.bodyNotAllowed' });

    // Control: the same GET without a body is fine.
    const plain = await rawRequest(port, ['GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n']);
    expect(plain.status).toBe(200);
  });

  it('refuses a non-JSON content type on a JSON route with 415', async () => {
    const cases: Record<string, string>[] = [
      { ...operatorHeaders(), 'content-type': 'text/plain' },
      { ...operatorHeaders(), 'content-type': 'application/x-www-form-urlencoded' },
      { ...operatorHeaders(), 'content-type': 'multipart/form-data; boundary=x' },
    ];
    for (const headers of cases) {
      await expectEnvelopeResponse(
        await postClock('{"advanceSeconds":60}', headers),
        415,
        'UnsupportedMediaTypeException',
        {
          errorCode: 'validation.unsupportedMediaType',
        },
      );
    }
    const noType = await rawPost('/probe/echo', { 'content-length': '12' }, '{"name":"a"}');
    expect(noType.status).toBe(415);
    expectEnvelope(noType.json, 'UnsupportedMediaTypeException');
  });

  it('accepts JSON with a charset parameter (control for the 415 cases)', async () => {
    const response = await fetch(`${t.baseUrl}/probe/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '{"name":"é"}',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'é' });
  });

  it('refuses invalid UTF-8 in a JSON body with 400', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"name":"'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}'),
    ]);
    const response = await rawPost(
      '/probe/echo',
      { 'content-type': 'application/json', 'content-length': String(bytes.length) },
      bytes,
    );
    expect(response.status).toBe(400);
    expectEnvelope(response.json, 'JsonFormatException', { errorCode: 'validation.invalidUtf8' });
    // An overlong encoding of "/" is invalid UTF-8 too.
    const overlong = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]);
    const second = await postClock(new Uint8Array(overlong));
    await expectEnvelopeResponse(second, 400, 'JsonFormatException');
  });

  it('refuses __proto__ and constructor.prototype keys with 400', async () => {
    for (const body of [
      '{"advanceSeconds":1,"__proto__":{"polluted":true}}',
      '{"advanceSeconds":1,"constructor":{"prototype":{"polluted":true}}}',
      '{"name":"a","__proto__":{"polluted":true}}',
    ]) {
      const target = body.includes('name') ? `${t.baseUrl}/probe/echo` : clockUrl();
      const response = await fetch(target, { method: 'POST', headers: operatorHeaders(), body });
      await expectEnvelopeResponse(response, 400, 'JsonFormatException');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('deeply nested bodies', () => {
  const DEPTH = 100_000;
  const nested = (inner: string) => `${'{"a":'.repeat(DEPTH)}${inner}${'}'.repeat(DEPTH)}`;

  it('refuses U+0000 nested 100,000 levels deep, naming the field (400, not a stack overflow)', async () => {
    const response = await fetch(`${t.baseUrl}/operator/v1/accounts`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: `{"name":${nested('"\\u0000"')},"country":"US","usersApi":false}`,
    });
    const body = await expectEnvelopeResponse(response, 400, 'ValidationException', {
      errorCode: 'validation.invalidCharacter',
    });
    expect(body.problematicField).toBe(`name${'.a'.repeat(DEPTH)}`.slice(0, 100));
  });

  it('answers bodies nested 100,000 levels deep without U+0000 with a 400, not a fault', async () => {
    for (const inner of ['"x"', '1', '1.123456789012345678']) {
      for (const body of [nested(inner), `${'['.repeat(DEPTH)}${inner}${']'.repeat(DEPTH)}`]) {
        const response = await fetch(`${t.baseUrl}/probe/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        expect(response.status, `${inner} ${body.slice(0, 5)}`).toBe(400);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      }
    }
  });
});

describe('schema violations', () => {
  it('names a missing field with FieldRequiredException', async () => {
    await expectEnvelopeResponse(await postClock('{}'), 400, 'FieldRequiredException', {
      errorCode: 'validation.fieldRequired',
      problematicField: 'advanceSeconds',
    });
  });

  it('names a field of the wrong type, without coercing strings', async () => {
    for (const body of [
      '{"advanceSeconds":"x"}',
      '{"advanceSeconds":"60"}',
      '{"advanceSeconds":1.5}',
      '{"advanceSeconds":0}',
    ]) {
      await expectEnvelopeResponse(await postClock(body), 400, 'ValidationException', {
        problematicField: 'advanceSeconds',
      });
    }
  });

  it('names an unknown body field', async () => {
    await expectEnvelopeResponse(
      await postClock('{"advanceSeconds":1,"extra":true}'),
      400,
      'ValidationException',
      {
        errorCode: 'validation.unknownField',
        problematicField: 'extra',
      },
    );
  });

  it('refuses a body that is not an object', async () => {
    for (const body of ['[1]', '"text"', '42', 'null']) {
      await expectEnvelopeResponse(await postClock(body), 400, 'ValidationException', {
        problematicField: 'body',
      });
    }
  });
});

describe('query strings and URLs', () => {
  it('names an unknown query parameter', async () => {
    await expectEnvelopeResponse(await fetch(`${t.baseUrl}/healthz?foo=1`), 400, 'ValidationException', {
      errorCode: 'validation.unknownField',
      problematicField: 'foo',
    });
    await expectEnvelopeResponse(
      await fetch(`${clockUrl()}?bogus=1`, {
        method: 'POST',
        headers: operatorHeaders(),
        body: '{"advanceSeconds":1}',
      }),
      400,
      'ValidationException',
      { problematicField: 'bogus' },
    );
  });

  it('refuses a duplicated query parameter', async () => {
    expect((await fetch(`${t.baseUrl}/healthz?timestamp=1`)).status).toBe(200);
    await expectEnvelopeResponse(
      await fetch(`${t.baseUrl}/healthz?timestamp=1&timestamp=2`),
      400,
      'ValidationException',
      {
        problematicField: 'timestamp',
      },
    );
    await expectEnvelopeResponse(
      await fetch(`${t.baseUrl}/healthz?format=json&format=json`),
      400,
      'ValidationException',
      {
        problematicField: 'format',
      },
    );
  });

  it('answers a 20 KB URL with a 414 envelope', async () => {
    const longPath = `/v3/${'a'.repeat(20 * 1024)}`;
    await expectEnvelopeResponse(await fetch(`${t.baseUrl}${longPath}`), 414, 'UriTooLongException', {
      errorCode: 'validation.urlTooLong',
    });
    await expectEnvelopeResponse(
      await fetch(`${t.baseUrl}/healthz?timestamp=${'1'.repeat(20 * 1024)}`),
      414,
      'UriTooLongException',
    );
  });

  it('answers a 100 KB header block with a 431 envelope from the client-error handler', async () => {
    const response = await rawRequest(port, [
      `GET /healthz HTTP/1.1\r\nhost: localhost\r\nx-padding: ${'a'.repeat(100 * 1024)}\r\n\r\n`,
    ]);
    expect(response.status).toBe(431);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expectEnvelope(response.json, 'ValidationException', { errorCode: 'validation.headersTooLarge' });

    const hugeUrl = await rawRequest(port, [
      `GET /healthz?x=${'b'.repeat(100 * 1024)} HTTP/1.1\r\nhost: localhost\r\n\r\n`,
    ]);
    expect(hugeUrl.status).toBe(431);
    expectEnvelope(hugeUrl.json, 'ValidationException');
  });

  it('answers a malformed request line with a 400 envelope', async () => {
    const response = await rawRequest(port, ['GARBAGE\r\n\r\n']);
    expect(response.status).toBe(400);
    expectEnvelope(response.json, 'ValidationException', { errorCode: 'validation.badRequest' });
  });
});

describe('URL text PostgreSQL cannot store', () => {
  let partner: PartnerCredentials;
  beforeAll(async () => {
    partner = await createPartner(t);
  });
  // Refused before authentication: not even the signature's replay record is written (afterEach).
  const signed = (path: string) => signedFetch(t, partner, { path });

  it('refuses U+0000 in a path parameter, naming it (400 envelope)', async () => {
    for (const [path, field] of [
      ['/v3/accounts/AC_%00', 'accountId'],
      ['/v3/orders/WO_%00', 'orderId'],
      ['/v3/transfers/TF_ZZZ%00', 'transferId'],
    ] as const) {
      await expectEnvelopeResponse(await signed(path), 400, 'ValidationException', {
        errorCode: 'validation.invalidCharacter',
        problematicField: field,
      });
    }
    // Before authentication, and on paths no route takes.
    await expectEnvelopeResponse(await fetch(`${t.baseUrl}/v3/accounts/AC_%00`), 400, 'ValidationException', {
      problematicField: 'accountId',
    });
    await expectEnvelopeResponse(await fetch(`${t.baseUrl}/v3/nothing%00`), 400, 'ValidationException', {
      problematicField: 'path',
    });
  });

  it('refuses U+0000 in a query parameter, naming it (400 envelope)', async () => {
    await expectEnvelopeResponse(
      await signed(`/v3/accounts/${partner.accountId}?masqueradeAs=x%00`),
      400,
      'ValidationException',
      { errorCode: 'validation.invalidCharacter', problematicField: 'masqueradeAs' },
    );
    // A parameter whose own name holds it is named by where it is.
    await expectEnvelopeResponse(await fetch(`${t.baseUrl}/healthz?%00=1`), 400, 'ValidationException', {
      errorCode: 'validation.invalidCharacter',
      problematicField: 'query',
    });
  });

  it('refuses a query parameter that is not valid percent-encoded UTF-8, naming it (400 envelope)', async () => {
    // A stray byte, a lone surrogate's encoding, a truncated sequence, a lone %.
    for (const value of ['%FF', '%ED%A0%80', 'x%C3', '50%']) {
      await expectEnvelopeResponse(await signed(`/v3/rates?as=${value}`), 400, 'ValidationException', {
        errorCode: 'validation.badUrl',
        problematicField: 'as',
      });
    }
  });

  it('lets percent-encoded text through (control)', async () => {
    const response = await signed(
      `/v3/accounts/${partner.accountId}?masqueradeAs=${encodeURIComponent(`account:${partner.accountId}`)}`,
    );
    expect(response.status).toBe(200);
    // The signature's replay record is written for an accepted request: the snapshot moves on.
    before = await snapshotTables(t.database.db);
  });

  it('answers the hosted pages’ people with a 400 HTML page in plain words', async () => {
    const pages: [string, string][] = [
      [`/purchase?accountId=${partner.accountId}&reservation=%00RS`, en.checkout.ended.incompleteTitle],
      ['/onboarding/%00', 'U+0000'],
    ];
    for (const [path, words] of pages) {
      const response = await fetch(`${t.baseUrl}${path}`);
      expect(response.status, path).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text(), path).toContain(words);
    }
  });
});

describe('internal faults', () => {
  it('answers a thrown error with 500 UnknownException, transient, no details on the wire', async () => {
    const response = await fetch(`${t.baseUrl}/probe/boom`);
    const text = await response.clone().text();
    await expectEnvelopeResponse(response, 500, 'UnknownException', {
      errorCode: 'unknown',
      transient: true,
    });
    expect(text).not.toContain('kaboom');
    expect(text).not.toContain('hunter2');
    expect(text).not.toMatch(/\bat\s|\.ts\b|stack|statusCode/);
  });

  it('answers throw null and a rejection without reason with the 500 envelope', async () => {
    for (const path of ['/probe/throw-null', '/probe/reject-undefined']) {
      const response = await fetch(`${t.baseUrl}${path}`);
      const text = await response.clone().text();
      await expectEnvelopeResponse(response, 500, 'UnknownException', { transient: true });
      expect(text).not.toMatch(/Cannot read|validation'|TypeError/);
    }
  });

  it('keeps serving on a kept-alive connection after faults', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get(`${t.baseUrl}${path}`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });
    expect(await get('/probe/boom')).toBe(500);
    expect(await get('/nothing')).toBe(404);
    expect(await get('/healthz')).toBe(200);
    agent.destroy();
  });
});
