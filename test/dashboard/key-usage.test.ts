import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyUsage } from '../../src/identity/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { createKey } from '../identity/support.ts';

/**
 * "Last used" of API keys: at most one row update a minute per key, written after the requests
 * answered, in one statement for many keys; a write that hangs or fails never holds up or fails
 * a request. Proved on the real app and database: a trigger counts the updates of the column, and
 * can hold them on an advisory lock or refuse them.
 */

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
  await t.database.db.query(`
    CREATE TABLE test_key_updates (api_key text NOT NULL);
    CREATE TABLE test_key_gate (api_key text PRIMARY KEY, mode text NOT NULL);
    CREATE FUNCTION test_key_used() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE gate text;
    BEGIN
      SELECT mode INTO gate FROM test_key_gate WHERE api_key = NEW.api_key;
      IF gate = 'hold' THEN PERFORM pg_advisory_xact_lock(4242); END IF;
      IF gate = 'fail' THEN RAISE EXCEPTION 'last-used refused for the test'; END IF;
      INSERT INTO test_key_updates VALUES (NEW.api_key);
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_key_used BEFORE UPDATE OF last_used_at ON api_keys
      FOR EACH ROW WHEN (OLD.last_used_at IS DISTINCT FROM NEW.last_used_at) EXECUTE FUNCTION test_key_used();`);
});
afterAll(async () => {
  await t?.close();
});

const updates = async (apiKey: string) =>
  Number(
    (
      await t.database.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM test_key_updates WHERE api_key = $1',
        [apiKey],
      )
    ).rows[0]!.n,
  );
const lastUsed = async (apiKey: string) =>
  (
    await t.database.db.query<{ last_used_at: Date | null }>(
      'SELECT last_used_at FROM api_keys WHERE api_key = $1',
      [apiKey],
    )
  ).rows[0]!.last_used_at;

/** Concurrent signed reads, each with a timestamp of its own (so each is a first use of its signature). */
async function burst(credentials: PartnerCredentials, count: number) {
  const start = Date.now();
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      signedFetch(t, credentials, { path: '/v2/account', timestamp: start + i }),
    ),
  );
  return answers.map((answer) => answer.status);
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Longer than the recorder's flush delay, so anything it was going to write is written. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));

describe('last used, on the real app', () => {
  it('a burst of signed requests updates the key’s row once; a second burst within the minute not at all', async () => {
    const key = await createKey(t, partner, { desc: 'burst' });
    const credentials = key;
    expect(await lastUsed(key.apiKey)).toBeNull();
    const startedMs = Date.now();
    expect(await burst(credentials, 30)).toEqual(Array(30).fill(200));
    await eventually(async () => (await lastUsed(key.apiKey)) !== null);
    await settle();
    expect(await updates(key.apiKey)).toBe(1);
    const used = (await lastUsed(key.apiKey))!.getTime();
    expect(used).toBeGreaterThanOrEqual(startedMs - 1000);
    expect(await burst(credentials, 30)).toEqual(Array(30).fill(200));
    await settle();
    expect(await updates(key.apiKey)).toBe(1);
    expect((await lastUsed(key.apiKey))!.getTime()).toBe(used);
  });

  it('requests answer while the write is held in the database: it is not on their path', async () => {
    const key = await createKey(t, partner, { desc: 'held' });
    const credentials = key;
    await t.database.db.query(`INSERT INTO test_key_gate VALUES ($1, 'hold')`, [key.apiKey]);
    const holder = await t.database.db.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(4242)');
      expect(await burst(credentials, 10)).toEqual(Array(10).fill(200));
      // The write is waiting on the lock (its UPDATE is in flight): requests still answer.
      await eventually(async () => {
        const { rows } = await t.database.db.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
        );
        return Number(rows[0]!.n) > 0;
      });
      expect(await burst(credentials, 10)).toEqual(Array(10).fill(200));
      expect(await lastUsed(key.apiKey)).toBeNull();
      await holder.query('SELECT pg_advisory_unlock(4242)');
      await eventually(async () => (await lastUsed(key.apiKey)) !== null);
      expect(await updates(key.apiKey)).toBe(1);
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()');
      holder.release();
    }
  });

  it('a write the database refuses fails no request', async () => {
    const key = await createKey(t, partner, { desc: 'refused' });
    await t.database.db.query(`INSERT INTO test_key_gate VALUES ($1, 'fail')`, [key.apiKey]);
    const credentials = key;
    expect(await burst(credentials, 10)).toEqual(Array(10).fill(200));
    await settle();
    expect(await burst(credentials, 10)).toEqual(Array(10).fill(200));
    await settle();
    expect(await lastUsed(key.apiKey)).toBeNull();
    expect(await updates(key.apiKey)).toBe(0);
  });

  it('the dashboard lists each key with its last use', async () => {
    const key = await createKey(t, partner, { desc: 'listed' });
    await burst(key, 1);
    await eventually(async () => (await lastUsed(key.apiKey)) !== null);
    const signIn = await fetch(`${t.baseUrl}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ apiKey: partner.apiKey, secretKey: partner.secretKey }).toString(),
    });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const page = await (await fetch(`${t.baseUrl}/dashboard/api-keys`, { headers: { cookie } })).text();
    const row = page.split('<tr>').find((part) => part.includes(key.apiKey))!;
    const iso = (await lastUsed(key.apiKey))!.toISOString();
    expect(row).toContain(`<time datetime="${iso}">`);
  });
});

describe('the recorder alone', () => {
  const recorder = (
    write: (uses: { apiKey: string; atMs: number }[]) => Promise<void>,
    failures: unknown[] = [],
  ) => new KeyUsage(write, (error) => failures.push(error), 10);

  it('notes a key at most once a minute and writes many keys in one call', async () => {
    const writes: { apiKey: string; atMs: number }[][] = [];
    const usage = recorder(async (uses) => {
      writes.push(uses);
    });
    usage.used('AK-1', 1_000);
    usage.used('AK-1', 2_000);
    usage.used('AK-2', 2_500);
    await usage.flush();
    usage.used('AK-1', 60_999);
    await usage.flush();
    usage.used('AK-1', 61_000);
    await usage.flush();
    expect(writes).toEqual([
      [
        { apiKey: 'AK-1', atMs: 1_000 },
        { apiKey: 'AK-2', atMs: 2_500 },
      ],
      [{ apiKey: 'AK-1', atMs: 61_000 }],
    ]);
  });

  it('reports a failed write, never throws it, and tries the key again at its next use', async () => {
    const failures: unknown[] = [];
    let fail = true;
    const written: string[] = [];
    const usage = recorder(async (uses) => {
      if (fail) throw new Error('down');
      written.push(...uses.map((use) => use.apiKey));
    }, failures);
    usage.used('AK-1', 1_000);
    await usage.flush();
    expect(failures).toHaveLength(1);
    fail = false;
    usage.used('AK-1', 2_000);
    await usage.flush();
    expect(written).toEqual(['AK-1']);
  });

  it('writes on its own after the delay', async () => {
    const written: string[] = [];
    const usage = recorder(async (uses) => {
      written.push(...uses.map((use) => use.apiKey));
    });
    usage.used('AK-9', 1_000);
    expect(written).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written).toEqual(['AK-9']);
  });
});
