import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEGUN_AHEAD_IDLE_MS, TransactionsBegunAhead } from '../../../src/platform/db/begun-ahead.ts';
import { createPool, type Db } from '../../../src/platform/db/pool.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

let database: TestDatabase;
let pool: Db;

beforeAll(async () => {
  database = await freshDatabase({ migrated: false });
  pool = createPool({
    connectionString: database.url,
    max: 4,
    statementTimeoutMs: 10_000,
    applicationName: 'begun-ahead-test',
  });
  await database.db.query('CREATE TABLE marks (id int PRIMARY KEY)');
});

afterAll(async () => {
  await pool.end();
  await database.drop();
});

/** Our pool's connections sitting in an open transaction with nothing running. */
async function waitingInTransaction(): Promise<number> {
  const { rows } = await database.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE application_name = 'begun-ahead-test' AND state = 'idle in transaction'`,
  );
  return rows[0]!.n;
}

/**
 * The BEGINs of the next transactions go out in the background once a run starts, so on a busy
 * machine they may still be on their way when the run returns: wait (up to 2 s) for the count.
 */
async function settlesAt(expected: number): Promise<number> {
  const deadline = Date.now() + 2000;
  let count = await waitingInTransaction();
  while (count !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    count = await waitingInTransaction();
  }
  return count;
}

const marks = async () =>
  (await database.db.query<{ id: number }>('SELECT id FROM marks ORDER BY id')).rows.map((row) => row.id);

describe('TransactionsBegunAhead', () => {
  it('commits what a run writes, rolls back a run that throws, and keeps the next transactions begun', async () => {
    const transactions = new TransactionsBegunAhead(pool, 2);
    await transactions.run((tx) => tx.query('INSERT INTO marks VALUES (1)'));
    await expect(
      transactions.run(async (tx) => {
        await tx.query('INSERT INTO marks VALUES (2)');
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await transactions.run((tx) => tx.query('INSERT INTO marks VALUES (3)'));
    expect(await marks()).toEqual([1, 3]);
    expect(await settlesAt(2)).toBe(2);
    await transactions.close();
    expect(await waitingInTransaction()).toBe(0);
    await database.db.query('TRUNCATE marks');
  });

  it('a transaction begun ahead sees what was committed after its BEGIN and locks nothing before its first statement', async () => {
    const transactions = new TransactionsBegunAhead(pool, 1);
    await transactions.run(async () => undefined);
    expect(await settlesAt(1)).toBe(1);
    // Committed after the next transaction was begun, and locked by no one in between.
    await database.db.query('INSERT INTO marks VALUES (7)');
    await database.db.query('BEGIN; LOCK TABLE marks IN ACCESS EXCLUSIVE MODE NOWAIT; COMMIT');
    const { rows: held } = await database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE application_name = 'begun-ahead-test' AND (backend_xid IS NOT NULL OR backend_xmin IS NOT NULL)`,
    );
    expect(held[0]!.n).toBe(0); // no transaction id, no snapshot
    const seen = await transactions.run(async (tx) => (await tx.query('SELECT id FROM marks')).rows);
    expect(seen).toEqual([{ id: 7 }]);
    await transactions.close();
    await database.db.query('TRUNCATE marks');
  });

  it('gives its connections back when unused for a while, and after close runs each in a transaction of its own', async () => {
    const transactions = new TransactionsBegunAhead(pool, 2);
    await transactions.run(async () => undefined);
    expect(await settlesAt(2)).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, BEGUN_AHEAD_IDLE_MS + 300));
    expect(await settlesAt(0)).toBe(0);
    await transactions.close();
    await transactions.run((tx) => tx.query('INSERT INTO marks VALUES (9)'));
    expect(await marks()).toEqual([9]);
    expect(await waitingInTransaction()).toBe(0);
  });
});
