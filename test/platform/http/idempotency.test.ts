import { Type } from 'typebox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS, runIdempotent, sendIdempotent } from '../../../src/platform/http/idempotency.ts';
import { Money } from '../../../src/platform/money.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { expectEnvelopeResponse } from '../../helpers/http.ts';

/** Test-controlled behaviour of the probe's effect. */
const probe = {
  failNext: false,
  /** When set, the effect announces it has started (holding the key) and waits for the gate. */
  hold: undefined as { entered: () => void; gate: Promise<void> } | undefined,
  effects: 0,
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    extend: async (app, ctx) => {
      await ctx.db.query('CREATE TABLE probe_things (id serial PRIMARY KEY, name text NOT NULL)');
      for (const path of ['/probe/things', '/probe/others']) {
        app.post<{ Body: { name: string; amount?: string } }>(
          path,
          {
            schema: {
              body: Type.Object(
                { name: Type.String(), amount: Type.Optional(Type.String()) },
                { additionalProperties: false },
              ),
            },
          },
          async (request, reply) => {
            const outcome = await runIdempotent(
              ctx,
              request,
              'probe-partner',
              async (tx) => {
                probe.effects++;
                const hold = probe.hold;
                if (hold) {
                  probe.hold = undefined;
                  await tx.query('SELECT pg_sleep(0.5)');
                  hold.entered();
                  await hold.gate;
                }
                const { rows } = await tx.query<{ id: number }>(
                  'INSERT INTO probe_things (name) VALUES ($1) RETURNING id',
                  [request.body.name],
                );
                if (probe.failNext) {
                  probe.failNext = false;
                  throw new Error('effect failed after writing');
                }
                return {
                  id: rows[0]!.id,
                  name: request.body.name,
                  total: new Money(request.body.amount ?? '0.1').plus('0.2'),
                  at: ctx.clock.now(),
                };
              },
              201,
            );
            return sendIdempotent(reply, outcome, 201);
          },
        );
      }
    },
  });
});
afterAll(async () => t.close());

beforeEach(async () => {
  await t.database.db.query('TRUNCATE probe_things, idempotency_keys');
  t.ctx.clock.setOffsetMs(0);
  probe.failNext = false;
  probe.hold = undefined;
  probe.effects = 0;
});

function post(body: unknown, key?: string, path = '/probe/things') {
  return fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });
}

async function thingCount(): Promise<number> {
  const { rows } = await t.database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_things');
  return rows[0]!.n;
}

async function keyCount(): Promise<number> {
  const { rows } = await t.database.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM idempotency_keys',
  );
  return rows[0]!.n;
}

describe('Idempotency-Key', () => {
  it('replays the same answer bytes for the same key and body, with one effect', async () => {
    const first = await post({ name: 'alpha', amount: '0.1' }, 'key-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const firstBytes = await first.text();
    expect(firstBytes).toMatch(/"total":0\.3[,}]/);

    const second = await post({ name: 'alpha', amount: '0.1' }, 'key-1');
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await second.text()).toBe(firstBytes);
    expect(await thingCount()).toBe(1);
    expect(probe.effects).toBe(1);
  });

  it('answers 422 when the key comes back with another body', async () => {
    expect((await post({ name: 'alpha' }, 'key-2')).status).toBe(201);
    await expectEnvelopeResponse(await post({ name: 'beta' }, 'key-2'), 422, 'IdempotencyConflictException', {
      errorCode: 'idempotency.keyReused',
      problematicField: 'Idempotency-Key',
    });
    expect(await thingCount()).toBe(1);
  });

  it('treats the same key from the same caller on another body byte-for-byte (whitespace counts)', async () => {
    const send = (body: string) =>
      fetch(`${t.baseUrl}/probe/things`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'key-ws' },
        body,
      });
    expect((await send('{"name":"alpha"}')).status).toBe(201);
    expect((await send('{"name": "alpha"}')).status).toBe(422);
  });

  it('accepts a 255-character key and refuses a 256-character one with 400', async () => {
    expect((await post({ name: 'long' }, 'k'.repeat(255))).status).toBe(201);
    await expectEnvelopeResponse(await post({ name: 'long' }, 'k'.repeat(256)), 400, 'ValidationException', {
      errorCode: 'validation.idempotencyKey',
      problematicField: 'Idempotency-Key',
    });
    expect(await thingCount()).toBe(1);
  });

  it('refuses a key with spaces and an empty key', async () => {
    await expectEnvelopeResponse(await post({ name: 'x' }, 'has space'), 400, 'ValidationException');
    await expectEnvelopeResponse(await post({ name: 'x' }, ''), 400, 'ValidationException');
    expect(await thingCount()).toBe(0);
  });

  it('runs the effect every time without a key', async () => {
    const first = await post({ name: 'alpha' });
    const second = await post({ name: 'alpha' });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotency-replayed')).toBeNull();
    expect(await thingCount()).toBe(2);
    expect(await keyCount()).toBe(0);
  });

  it('answers 409 (transient) while the same key is in flight, then replays once it is done', async () => {
    let entered!: () => void;
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    probe.hold = { entered, gate };

    const first = post({ name: 'slow' }, 'key-parallel');
    await started; // the first request holds the key inside its transaction
    const second = await post({ name: 'slow' }, 'key-parallel');
    await expectEnvelopeResponse(second, 409, 'IdempotencyConflictException', {
      errorCode: 'idempotency.inFlight',
      transient: true,
    });
    open();
    const firstResponse = await first;
    expect(firstResponse.status).toBe(201);
    const firstBytes = await firstResponse.text();

    const retry = await post({ name: 'slow' }, 'key-parallel');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(await retry.text()).toBe(firstBytes);
    expect(await thingCount()).toBe(1);
  });

  it('stores nothing when the effect fails, so a retry with the same key goes through', async () => {
    probe.failNext = true;
    await expectEnvelopeResponse(await post({ name: 'flaky' }, 'key-fail'), 500, 'UnknownException', {
      transient: true,
    });
    expect(await thingCount()).toBe(0);
    expect(await keyCount()).toBe(0);

    const retry = await post({ name: 'flaky' }, 'key-fail');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBeNull();
    expect(await thingCount()).toBe(1);
    expect(await keyCount()).toBe(1);
  });

  it('still replays just before 24 h and no longer after', async () => {
    const first = await post({ name: 'aging' }, 'key-old');
    expect(first.status).toBe(201);

    t.ctx.clock.setOffsetMs(IDEMPOTENCY_TTL_MS - 60_000);
    const young = await post({ name: 'aging' }, 'key-old');
    expect(young.headers.get('idempotency-replayed')).toBe('true');
    expect(await thingCount()).toBe(1);

    t.ctx.clock.setOffsetMs(IDEMPOTENCY_TTL_MS + 60_000);
    const old = await post({ name: 'aging' }, 'key-old');
    expect(old.status).toBe(201);
    expect(old.headers.get('idempotency-replayed')).toBeNull();
    expect(await thingCount()).toBe(2);
    // The expired entry was replaced: the key is stored once, valid for another 24 h.
    expect(await keyCount()).toBe(1);
    const again = await post({ name: 'aging' }, 'key-old');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await thingCount()).toBe(2);
  });

  it('keeps keys of different routes apart', async () => {
    // The same key on another route is another scope: it neither replays nor conflicts.
    expect((await post({ name: 'scoped' }, 'shared-key')).status).toBe(201);
    const other = await post({ name: 'other' }, 'shared-key', '/probe/others');
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotency-replayed')).toBeNull();
    expect(await thingCount()).toBe(2);
    expect(await keyCount()).toBe(2);
  });
});
