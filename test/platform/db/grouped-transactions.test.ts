import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  batched,
  GroupedTransactions,
  type GroupingOptions,
  RunAlone,
  TransactionSteps,
} from '../../../src/platform/db/grouped-transactions.ts';
import { createPool, type Db, withTransaction } from '../../../src/platform/db/pool.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

let database: TestDatabase;
let pool: Db;

beforeAll(async () => {
  database = await freshDatabase({ migrated: false });
  pool = createPool({ connectionString: database.url, max: 6, statementTimeoutMs: 10_000 });
  await database.db.query('CREATE TABLE marks (id int PRIMARY KEY)');
  await database.db.query('CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL)');
});

afterAll(async () => {
  await pool.end();
  await database.drop();
});

beforeEach(async () => {
  await database.db.query('TRUNCATE marks, items');
  statements.length = 0;
});

interface Item {
  id: number;
  label: string;
  /** Its command refuses it after its first step (which wrote its mark). */
  refuse?: boolean;
  /** Its command asks to run alone when grouped. */
  alone?: boolean;
  /** Its mark statement fails without an answer from PostgreSQL. */
  lose?: boolean;
  key?: string;
}

/** Every statement a step ran: its step and the ids of its inputs. */
const statements: { step: string; ids: number[] }[] = [];

const mark = batched('test.mark', async (q, items: Item[]) => {
  statements.push({ step: 'mark', ids: items.map((item) => item.id) });
  if (items.some((item) => item.lose)) throw new Error('Connection terminated unexpectedly');
  await q.query('INSERT INTO marks SELECT unnest($1::int[])', [items.map((item) => item.id)]);
  return items.map(() => undefined);
});

const insert = batched('test.insert', async (q, items: Item[]) => {
  statements.push({ step: 'insert', ids: items.map((item) => item.id) });
  const { rows } = await q.query<{ id: number }>(
    'INSERT INTO items SELECT * FROM unnest($1::int[], $2::text[]) RETURNING id',
    [items.map((item) => item.id), items.map((item) => item.label)],
  );
  return rows.map((row) => row.id);
});

/** Marks the item, then inserts it: written as if alone. */
async function store(steps: TransactionSteps, item: Item) {
  await steps.run(mark, item);
  if (item.refuse) throw new Error(`item ${item.id} refuses itself`);
  if (item.alone && steps.grouped) throw new RunAlone();
  const id = await steps.run(insert, item);
  return { id, grouped: steps.grouped };
}

const known = batched('test.known', async (q, items: Item[]) => {
  statements.push({ step: 'known', ids: items.map((item) => item.id) });
  const { rows } = await q.query<{ id: number }>('SELECT id FROM items WHERE id = ANY($1::int[])', [
    items.map((item) => item.id),
  ]);
  return items.map((item) => rows.some((row) => row.id === item.id));
});

/** Reads, then inserts the item: its only write is its last statement, as on the pool. */
async function readThenStore(steps: TransactionSteps, item: Item) {
  await steps.run(known, item);
  const id = await steps.run(insert, item);
  return { id, grouped: steps.grouped };
}

function grouped(options: Partial<GroupingOptions<Item>> = {}) {
  const command = options.transactional === false ? readThenStore : store;
  return new GroupedTransactions(pool, command, { transactional: true, maxGroup: 50, ...options });
}

async function ids(table: 'marks' | 'items'): Promise<number[]> {
  const { rows } = await database.db.query<{ id: number }>(`SELECT id FROM ${table} ORDER BY id`);
  return rows.map((row) => row.id);
}

const items = (from: number, count: number): Item[] =>
  Array.from({ length: count }, (_unused, index) => ({ id: from + index, label: `item ${from + index}` }));

describe('GroupedTransactions', () => {
  it('runs the commands of one turn as one group, a statement per step, in one transaction', async () => {
    const group = grouped();
    const answers = await Promise.all(items(1, 10).map((item) => group.call(item)));
    expect(answers).toEqual(items(1, 10).map((item) => ({ id: item.id, grouped: true })));
    expect(statements).toEqual([
      { step: 'mark', ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
      { step: 'insert', ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
    ]);
    const { rows } = await database.db.query<{ n: number }>(
      'SELECT count(DISTINCT xmin::text)::int AS n FROM items',
    );
    expect(rows[0]!.n).toBe(1);
    await group.close();
  });

  it('gives the same answers and rows grouped as alone', async () => {
    const alone = [];
    for (const item of items(1, 5))
      alone.push(await withTransaction(pool, (tx) => store(TransactionSteps.alone(tx), item)));
    const aloneRows = await database.db.query('SELECT * FROM items ORDER BY id');
    await database.db.query('TRUNCATE marks, items');
    const group = grouped();
    const together = await Promise.all(items(1, 5).map((item) => group.call(item)));
    expect(together.map((answer) => answer.id)).toEqual(alone.map((answer) => answer.id));
    expect((await database.db.query('SELECT * FROM items ORDER BY id')).rows).toEqual(aloneRows.rows);
    await group.close();
  });

  for (const transactional of [true, false]) {
    it(`commits the healthy members of a group whose statement PostgreSQL refuses, and only the poisoned one fails (${transactional ? 'one transaction' : 'on the pool'})`, async () => {
      await database.db.query("INSERT INTO items VALUES (4, 'taken')");
      const group = grouped({ transactional });
      const batch = items(1, 8);
      batch[1] = { ...batch[1]!, label: 'nul \u0000 byte' };
      const outcomes = await Promise.allSettled(batch.map((item) => group.call(item)));
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'fulfilled',
      ]);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22021' });
      expect((outcomes[3] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
      expect(await ids('items')).toEqual([1, 3, 4, 5, 6, 7, 8]);
      const { rows } = await database.db.query<{ label: string }>('SELECT label FROM items WHERE id = 4');
      expect(rows[0]!.label).toBe('taken');
      // The group's statement had every input; then each ran again alone.
      expect(statements[1]).toEqual({ step: 'insert', ids: [1, 2, 3, 4, 5, 6, 7, 8] });
      await group.close();
    });
  }

  it('rolls back a member that refuses itself, and commits the others', async () => {
    const group = grouped();
    const batch = items(1, 6);
    batch[2] = { ...batch[2]!, refuse: true };
    const outcomes = await Promise.allSettled(batch.map((item) => group.call(item)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((outcomes[2] as PromiseRejectedResult).reason).toEqual(new Error('item 3 refuses itself'));
    // Its mark was written by the group's first statement, and rolled back with the group.
    expect(await ids('marks')).toEqual([1, 2, 4, 5, 6]);
    expect(await ids('items')).toEqual([1, 2, 4, 5, 6]);
    // The others went again as a group, without it.
    expect(statements.at(-1)).toEqual({ step: 'insert', ids: [1, 2, 4, 5, 6] });
    await group.close();
  });

  it('runs alone a member that asks to (RunAlone), after rolling its group back', async () => {
    const group = grouped();
    const batch = items(1, 4);
    batch[1] = { ...batch[1]!, alone: true };
    const answers = await Promise.all(batch.map((item) => group.call(item)));
    expect(answers).toEqual([
      { id: 1, grouped: true },
      { id: 2, grouped: false },
      { id: 3, grouped: true },
      { id: 4, grouped: true },
    ]);
    expect(await ids('items')).toEqual([1, 2, 3, 4]);
    expect(statements.filter((statement) => statement.ids.includes(2)).at(-1)).toEqual({
      step: 'insert',
      ids: [2],
    });
    await group.close();
  });

  it('never puts two members that share a key in one group', async () => {
    const group = grouped({ keysOf: (item) => (item.key ? [item.key] : []), inFlight: 2 });
    const batch = items(1, 9).map((item) => ({ ...item, key: `k${item.id % 3}` }));
    const answers = await Promise.all(batch.map((item) => group.call(item)));
    expect(answers.map((answer) => answer.id)).toEqual(batch.map((item) => item.id));
    for (const statement of statements) {
      const keys = statement.ids.map((id) => id % 3);
      expect(new Set(keys).size, JSON.stringify(statement)).toBe(keys.length);
    }
    expect(await ids('items')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await group.close();
  });

  it('gives every member the error when a statement’s outcome is unknown, and keeps nothing', async () => {
    const group = grouped();
    const batch = items(1, 3);
    batch[0] = { ...batch[0]!, lose: true };
    const outcomes = await Promise.allSettled(batch.map((item) => group.call(item)));
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toEqual(
        new Error('Connection terminated unexpectedly'),
      );
    }
    expect(await ids('marks')).toEqual([]);
    expect(statements).toHaveLength(1);
    await group.close();
  });
});
