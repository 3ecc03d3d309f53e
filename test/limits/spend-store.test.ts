import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveOverride } from '../../src/limits/overrides-store.ts';
import { recordSpend, releaseSpend } from '../../src/limits/service.ts';
import {
  deleteSpends,
  largestSpentOf,
  lockSpendKeysReadingOverrides,
  recordSpendsWithin,
} from '../../src/limits/spend-store.ts';
import { Clock } from '../../src/platform/clock.ts';
import type { AppContext } from '../../src/platform/context.ts';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../src/platform/db/migrate.ts';
import { type Db, type Queryable, withTransaction } from '../../src/platform/db/pool.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { Money } from '../../src/platform/money.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

/** One read of largestSpentOf: per window start, the most one of `keys` spent since. */
async function largestSpent(q: Queryable, keys: string[], startsMs: number[]): Promise<string[]> {
  return (await largestSpentOf(q, [{ keys, startsMs }]))[0]!;
}

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const NO_LIMIT = '1000000000';

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await freshDatabase();
  db = database.db;
});
afterAll(async () => database.drop());

/** What the windows must answer, from the rows alone: per key, the sum of rows at or after start. */
async function bruteForce(keys: string[], startMs: number): Promise<string> {
  const { rows } = await db.query<{ spent: string }>(
    `SELECT COALESCE(max(s), 0)::text AS spent FROM (
       SELECT sum(amount_usd) AS s FROM card_spend
       WHERE spend_key = ANY($1::text[]) AND at >= to_timestamp($2::bigint / 1000.0) GROUP BY spend_key) AS per_key`,
    [keys, startMs],
  );
  return rows[0]!.spent;
}

/** Rows whose running total is not the sum of their key's rows up to them in (at, order_id) order. */
async function wrongRunningTotals(keys: string[]): Promise<unknown[]> {
  const { rows } = await db.query(
    `SELECT order_id, spend_key, running_usd, expected FROM (
       SELECT order_id, spend_key, running_usd,
              sum(amount_usd) OVER (PARTITION BY spend_key ORDER BY at, order_id) AS expected
       FROM card_spend WHERE spend_key = ANY($1::text[])) AS r
     WHERE running_usd <> expected`,
    [keys],
  );
  return rows;
}

async function record(orderId: string, keys: string[], amountUsd: string, atMs: number) {
  return withTransaction(db, async (tx) => {
    await lockSpendKeysReadingOverrides(tx, keys, []);
    const [answer] = await recordSpendsWithin(
      tx,
      [{ orderId, keys, amountUsd, limitsUsd: [NO_LIMIT] }],
      [atMs - DAY],
      atMs,
    );
    return answer;
  });
}

/** A small deterministic generator, so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('card spend running totals', () => {
  it('count a row at exactly the window start and not one a millisecond before it', async () => {
    const key = 'test:boundary';
    await record('WO_BOUNDARY01', [key], '10.25', T0);
    await record('WO_BOUNDARY02', [key], '4.75', T0 + 1);
    const spent = await largestSpent(db, [key], [T0, T0 + 1, T0 + 2, T0 - 365 * DAY]);
    expect(spent.map((value) => new Money(value).toFixed(2))).toEqual(['15.00', '4.75', '0.00', '15.00']);
  });

  it('stay exact through out-of-order times, equal times and releases, for every window start', async () => {
    const keys = ['test:random:a', 'test:random:b', 'test:random:c'];
    const next = random(7);
    const live: string[] = [];
    for (let step = 0; step < 120; step++) {
      if (live.length > 0 && next() < 0.25) {
        // One order's spend released, or several at once (a group's, which may share keys here).
        const released = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
          live.splice(Math.floor(next() * live.length), 1),
        ).flat();
        await withTransaction(db, (tx) => deleteSpends(tx, released));
      } else {
        const orderId = `WO_R${String(step).padStart(10, '0')}`;
        const orderKeys = keys.filter(() => next() < 0.6);
        if (orderKeys.length === 0) orderKeys.push(keys[0]!);
        // Mostly forward in time, sometimes earlier than rows already there, sometimes on the same ms.
        const atMs = T0 + 400 * DAY + Math.floor(next() * 40) * HOUR + (next() < 0.2 ? 0 : step);
        const amount = (1 + Math.floor(next() * 9999) / 100).toFixed(2);
        await record(orderId, orderKeys, amount, atMs);
        live.push(orderId);
      }
      if (step % 10 === 9) {
        expect(await wrongRunningTotals(keys)).toEqual([]);
        const starts = [0, 3, 17, 29, 41].map((hours) => T0 + 400 * DAY + hours * HOUR + step);
        const expected = await Promise.all(starts.map((start) => bruteForce(keys, start)));
        const answered = await largestSpent(db, keys, starts);
        expect(answered.map((value) => new Money(value).toFixed(2))).toEqual(
          expected.map((value) => new Money(value).toFixed(2)),
        );
      }
    }
  });

  it('stay exact when orders placed together record spend behind rows another clock wrote ahead', async () => {
    const keys = ['test:together:a', 'test:together:b', 'test:together:c'];
    await record('WO_AHEAD00001', [keys[0]!, keys[1]!], '40', T0 + 10 * HOUR);
    await record('WO_AHEAD00002', [keys[2]!], '5', T0 + 2 * HOUR);
    // A group of two orders (no shared key) at T0 + 1 h: before both rows above.
    await withTransaction(db, async (tx) => {
      await lockSpendKeysReadingOverrides(tx, keys, []);
      const answers = await recordSpendsWithin(
        tx,
        [
          { orderId: 'WO_TOGETHER01', keys: [keys[0]!, keys[2]!], amountUsd: '7.25', limitsUsd: [NO_LIMIT] },
          { orderId: 'WO_TOGETHER02', keys: [keys[1]!], amountUsd: '3', limitsUsd: [NO_LIMIT] },
        ],
        [T0],
        T0 + HOUR,
      );
      expect(answers.map((answer) => answer.recorded)).toEqual([true, true]);
    });
    expect(await wrongRunningTotals(keys)).toEqual([]);
    const spent = await largestSpent(db, keys, [T0, T0 + 3 * HOUR]);
    expect(spent.map((value) => new Money(value).toFixed(2))).toEqual(['47.25', '40.00']);
  });

  it('record together only the orders that fit every window, answering what each key had spent', async () => {
    await record('WO_FITS000001', ['test:fits:a'], '60', T0);
    await record('WO_FITS000002', ['test:fits:b'], '90', T0 - 3 * DAY);
    const before = await db.query('SELECT count(*)::int AS n FROM card_spend');
    const orders = [
      // 60 spent today under a: 40 more fits a daily 100, 41 would not.
      { orderId: 'WO_FITS000010', keys: ['test:fits:a'], amountUsd: '40', limitsUsd: ['100', '500'] },
      // b spent 90 three days ago: out of the daily window, inside the weekly one (100).
      {
        orderId: 'WO_FITS000011',
        keys: ['test:fits:b', 'test:fits:c'],
        amountUsd: '10.01',
        limitsUsd: ['100', '100'],
      },
      { orderId: 'WO_FITS000012', keys: ['test:fits:d'], amountUsd: '100', limitsUsd: ['100', '100'] },
    ];
    const answers = await withTransaction(db, async (tx) => {
      await lockSpendKeysReadingOverrides(
        tx,
        ['test:fits:a', 'test:fits:b', 'test:fits:c', 'test:fits:d'],
        [],
      );
      return recordSpendsWithin(tx, orders, [T0 + HOUR - DAY, T0 + HOUR - 7 * DAY], T0 + HOUR);
    });
    expect(answers).toEqual([
      { recorded: true, spent: ['60', '60'] },
      { recorded: false, spent: ['0', '90'] },
      { recorded: true, spent: ['0', '0'] },
    ]);
    const { rows } = await db.query<{ order_id: string; spend_key: string; running_usd: string }>(
      `SELECT order_id, spend_key, running_usd::text FROM card_spend WHERE order_id LIKE 'WO_FITS00001%' ORDER BY 1, 2`,
    );
    expect(rows).toEqual([
      { order_id: 'WO_FITS000010', spend_key: 'test:fits:a', running_usd: '100' },
      { order_id: 'WO_FITS000012', spend_key: 'test:fits:d', running_usd: '100' },
    ]);
    const after = await db.query('SELECT count(*)::int AS n FROM card_spend');
    expect(after.rows[0].n).toBe(before.rows[0].n + 2);
  });

  it("lock the keys and read the partners' overrides in one statement", async () => {
    await db.query(
      `INSERT INTO accounts (id, partner_id, kind, status, type, country)
       VALUES ('AC_OVERRIDE0001', 'AC_OVERRIDE0001', 'master', 'APPROVED', 'BUSINESS', 'US')`,
    );
    await saveOverride(db, 'AC_OVERRIDE0001', { STANDARD: { daily: '5', weekly: '6', yearly: '7' } }, T0);
    await withTransaction(db, async (tx) => {
      const overrides = await lockSpendKeysReadingOverrides(
        tx,
        ['test:lock:b', 'test:lock:a'],
        ['AC_OVERRIDE0001', 'AC_NONE'],
      );
      expect([...overrides]).toEqual([
        ['AC_OVERRIDE0001', { STANDARD: { daily: '5', weekly: '6', yearly: '7' } }],
      ]);
      const { rows } = await tx.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()",
      );
      expect(rows[0]!.n).toBe(2);
    });
    await withTransaction(db, async (tx) => {
      const none = await lockSpendKeysReadingOverrides(tx, ['test:lock:a'], []);
      expect(none.size).toBe(0);
    });
  });

  it('answer many reads in one statement, each as it would be answered alone', async () => {
    await record('WO_GROUPED0001', ['test:grouped:a'], '30', T0);
    await record('WO_GROUPED0002', ['test:grouped:b'], '12.5', T0 + HOUR);
    await record('WO_GROUPED0003', ['test:grouped:a', 'test:grouped:b'], '7', T0 + 2 * HOUR);
    const starts = [T0 - DAY, T0 + HOUR, T0 + 3 * HOUR];
    const reads = [
      { keys: ['test:grouped:a'], startsMs: starts },
      { keys: ['test:grouped:none'], startsMs: starts },
      { keys: ['test:grouped:b', 'test:grouped:a'], startsMs: starts },
      { keys: ['test:grouped:b'], startsMs: [T0 - DAY, T0 + 2 * HOUR, T0 + 2 * HOUR + 1] },
    ];
    const together = await largestSpentOf(db, reads);
    const alone = await Promise.all(reads.map((read) => largestSpent(db, read.keys, read.startsMs)));
    expect(together).toEqual(alone);
    expect(together.map((sums) => sums.map((value) => new Money(value).toFixed(2)))).toEqual([
      ['37.00', '7.00', '0.00'],
      ['0.00', '0.00', '0.00'],
      ['37.00', '19.50', '0.00'],
      ['19.50', '7.00', '0.00'],
    ]);
  });

  it('record nothing when the amount is over a window’s room, and exactly the room fits', async () => {
    const key = 'test:room';
    await record('WO_ROOM000001', [key], '400', T0);
    const attempt = (orderId: string, amountUsd: string) =>
      withTransaction(db, async (tx) => {
        await lockSpendKeysReadingOverrides(tx, [key], []);
        const [answer] = await recordSpendsWithin(
          tx,
          [{ orderId, keys: [key], amountUsd, limitsUsd: ['500', '2000'] }],
          [T0 + HOUR - DAY, T0 + HOUR - 7 * DAY],
          T0 + HOUR,
        );
        return answer;
      });
    expect(await attempt('WO_ROOM000002', '100.01')).toEqual({ recorded: false, spent: ['400', '400'] });
    expect(await attempt('WO_ROOM000003', '100')).toEqual({ recorded: true, spent: ['400', '400'] });
    const { rows } = await db.query('SELECT order_id FROM card_spend WHERE spend_key = $1 ORDER BY at', [
      key,
    ]);
    expect(rows).toEqual([{ order_id: 'WO_ROOM000001' }, { order_id: 'WO_ROOM000003' }]);
  });

  it('read as many pages for a key with 20,000 past orders as for one with 10', async () => {
    for (const [key, orders] of [
      ['test:light', 10],
      ['test:heavy', 20_000],
    ] as const) {
      await db.query(
        `INSERT INTO card_spend (order_id, spend_key, amount_usd, at, running_usd)
         SELECT 'WO_' || $1 || n, $1, 25, to_timestamp($3::bigint / 1000.0) - n * interval '1 minute', ($2 - n) * 25
         FROM generate_series(0, $2::int - 1) AS n`,
        [key, orders, T0],
      );
    }
    await db.query('VACUUM ANALYZE card_spend');
    /** Pages the store's window read touches, from EXPLAIN ANALYZE of the very statement it sends. */
    const pagesRead = async (key: string) => {
      let pages = 0;
      const explaining = {
        query: async (text: string, params: unknown[]) => {
          const { rows } = await db.query<{ 'QUERY PLAN': { Plan: Record<string, number> }[] }>(
            `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`,
            params,
          );
          const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
          pages = plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
          return { rows: [{ ord: 1, w0: '0', w1: '0', w2: '0' }] };
        },
      } as unknown as Queryable;
      await largestSpent(explaining, [key], [T0 - DAY, T0 - 7 * DAY, T0 - 365 * DAY]);
      return pages;
    };
    const light = await pagesRead('test:light');
    const heavy = await pagesRead('test:heavy');
    expect(light).toBeGreaterThan(0);
    // A backward step can cross one more leaf page per probe; summing the rows would read hundreds.
    expect(heavy).toBeLessThanOrEqual(light + 4);
  });
});

describe('recordSpend and releaseSpend under concurrency', () => {
  const ctxAt = (nowMs: number) => ({ clock: new Clock(() => nowMs) }) as unknown as AppContext;
  const subject = { partnerId: undefined, country: 'US', tier: 'STANDARD' as const };

  it('let exactly as many racing $100 orders through as the $500 day has room for', async () => {
    const key = 'test:race';
    const answers = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        withTransaction(db, (tx) =>
          recordSpend(ctxAt(T0 + index), tx, {
            orderId: `WO_RACE${String(index).padStart(7, '0')}`,
            amountUsd: new Money(100),
            subject,
            keys: [key, `test:race:card:${index % 3}`],
          }),
        ),
      ),
    );
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(5);
    for (const answer of answers) {
      if (answer.status === 'rejected') {
        expect(answer.reason).toBeInstanceOf(ApiError);
        expect((answer.reason as ApiError).errorCode).toBe('limits.dailyLimitReached');
      }
    }
    expect(await largestSpent(db, [key], [T0 - DAY])).toEqual(['500']);
  });

  it('keep running totals right when releases race new orders on the same keys', async () => {
    const keys = ['test:churn:address', 'test:churn:card'];
    const placed = Array.from({ length: 10 }, (_, index) => `WO_CHURN${String(index).padStart(6, '0')}`);
    for (const [index, orderId] of placed.entries()) {
      await withTransaction(db, (tx) =>
        recordSpend(ctxAt(T0 + index), tx, { orderId, amountUsd: new Money(10), subject, keys }),
      );
    }
    await Promise.all([
      ...placed
        .filter((_, index) => index % 2 === 0)
        .map((orderId) => withTransaction(db, (tx) => releaseSpend(tx, orderId))),
      ...Array.from({ length: 10 }, (_, index) =>
        withTransaction(db, (tx) =>
          recordSpend(ctxAt(T0 + 100 + index), tx, {
            orderId: `WO_CHURNNEW${String(index).padStart(3, '0')}`,
            amountUsd: new Money(5),
            subject,
            keys,
          }),
        ),
      ),
    ]);
    expect(await wrongRunningTotals(keys)).toEqual([]);
    expect(await largestSpent(db, keys, [T0 - DAY])).toEqual(['100']);
    // A repeat finds nothing and changes nothing.
    await withTransaction(db, (tx) => releaseSpend(tx, placed[0]!));
    expect(await largestSpent(db, keys, [T0 - DAY])).toEqual(['100']);
  });
});

describe('migration 009', () => {
  let old: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    old = await freshDatabase({ migrated: false });
    dir = await mkdtemp(path.join(os.tmpdir(), 'rampart-migrations-'));
  });
  afterAll(async () => {
    await old.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives existing spend its running totals and drops the day buckets', async () => {
    const files = await readMigrations();
    for (const file of files.filter((f) => f.version <= '008')) {
      await writeFile(path.join(dir, file.name), file.sql);
    }
    await migrate(old.db, dir);
    await old.db.query(
      `INSERT INTO card_spend (order_id, spend_key, amount_usd, at) VALUES
         ('WO_M2', 'k1', 20, '2026-01-02T00:00:00Z'), ('WO_M1', 'k1', 10.5, '2026-01-01T00:00:00Z'),
         ('WO_M4', 'k1', 1, '2026-01-02T00:00:00Z'), ('WO_M3', 'k2', 7, '2026-01-01T00:00:00Z')`,
    );
    const name = files.find((f) => f.version === '009')!.name;
    await writeFile(path.join(dir, name), await readFile(path.join(MIGRATIONS_DIR, name), 'utf8'));
    await migrate(old.db, dir);
    const { rows } = await old.db.query(
      'SELECT order_id, spend_key, running_usd FROM card_spend ORDER BY spend_key, at, order_id',
    );
    expect(rows).toEqual([
      { order_id: 'WO_M1', spend_key: 'k1', running_usd: '10.5' },
      { order_id: 'WO_M2', spend_key: 'k1', running_usd: '30.5' },
      { order_id: 'WO_M4', spend_key: 'k1', running_usd: '31.5' },
      { order_id: 'WO_M3', spend_key: 'k2', running_usd: '7' },
    ]);
    const days = await old.db.query(`SELECT to_regclass('card_spend_days') AS t`);
    expect(days.rows).toEqual([{ t: null }]);
  });
});
