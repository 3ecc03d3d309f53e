import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupedCalls, GroupedWriter, rowsInInputOrder } from '../../../src/platform/db/grouped-writer.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

describe('GroupedWriter', () => {
  it('writes rows added in the same turn as one group, and rows added meanwhile as the next', async () => {
    const groups: number[][] = [];
    let release: () => void = () => undefined;
    const writer = new GroupedWriter<number>(async (rows) => {
      groups.push(rows);
      if (groups.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = [writer.add(1), writer.add(2)];
    await new Promise((resolve) => setImmediate(resolve));
    const second = [writer.add(3), writer.add(4), writer.add(5)];
    release();
    await Promise.all([...first, ...second]);
    expect(groups).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('answers an add only once its group is written', async () => {
    let written = false;
    const writer = new GroupedWriter<string>(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      written = true;
    });
    await writer.add('row');
    expect(written).toBe(true);
  });

  it('rejects every add of a failed group with the failure, and goes on with the next group', async () => {
    let calls = 0;
    const writer = new GroupedWriter<number>(async () => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
    });
    const failed = await Promise.allSettled([writer.add(1), writer.add(2)]);
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason).toEqual(new Error('database down'));
    await expect(writer.add(3)).resolves.toBeUndefined();
  });

  it('splits a backlog larger than the group bound', async () => {
    const sizes: number[] = [];
    const writer = new GroupedWriter<number>(async (rows) => {
      sizes.push(rows.length);
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((row) => writer.add(row)));
    expect(sizes).toEqual([2, 2, 1]);
  });
});

describe('GroupedCalls', () => {
  it('answers each call of a group with its own output, in one run of the group', async () => {
    const runs: number[][] = [];
    const squares = new GroupedCalls<number, number>(async (inputs) => {
      runs.push(inputs);
      return inputs.map((input) => input * input);
    });
    expect(await Promise.all([3, 1, 4, 1, 5].map((input) => squares.call(input)))).toEqual([9, 1, 16, 1, 25]);
    expect(runs).toEqual([[3, 1, 4, 1, 5]]);
  });

  it('rejects every call of a failed group and answers the next group', async () => {
    let runs = 0;
    const calls = new GroupedCalls<string, string>(async (inputs) => {
      runs += 1;
      if (runs === 1) throw new Error('statement refused');
      return inputs.map((input) => input.toUpperCase());
    });
    const failed = await Promise.allSettled([calls.call('a'), calls.call('b')]);
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    await expect(calls.call('c')).resolves.toBe('C');
  });

  it('keeps inputs that share a key out of one group, each waiting in arrival order', async () => {
    const runs: string[][] = [];
    const calls = new GroupedCalls<string, string>(
      async (inputs) => {
        runs.push(inputs);
        return inputs;
      },
      { maxGroup: 3, keysOf: (input) => input.split('+') },
    );
    const inputs = ['a', 'b+x', 'a+c', 'd', 'x', 'e', 'c'];
    expect(await Promise.all(inputs.map((input) => calls.call(input)))).toEqual(inputs);
    // a, b+x, d fill the first group (max 3); a+c shares a, x shares x; the rest follow in order.
    expect(runs).toEqual([['a', 'b+x', 'd'], ['a+c', 'x', 'e'], ['c']]);
  });
});

describe('a group PostgreSQL refuses because of one input', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase({ migrated: false });
    await database.db.query('CREATE TABLE notes (partner text NOT NULL, body text NOT NULL)');
  });
  afterAll(async () => database?.drop());

  interface Note {
    partner: string;
    body: string;
  }
  const insertNotesWith = (q: Pick<pg.Client, 'query'>, notes: Note[]) =>
    q.query('INSERT INTO notes SELECT * FROM unnest($1::text[], $2::text[])', [
      notes.map((note) => note.partner),
      notes.map((note) => note.body),
    ]);
  const insertNotes = (notes: Note[]) => insertNotesWith(database.db, notes);
  const stored = async (partner: string) =>
    (
      await database.db.query<Note>('SELECT body FROM notes WHERE partner = $1 ORDER BY body', [partner])
    ).rows.map((row) => row.body);
  // PostgreSQL refuses U+0000 in text: the row of one partner takes the whole statement down.
  const POISON = `poisoned ${String.fromCharCode(0)}`;

  it('writes every healthy row of the group, and only the poisoned one fails', async () => {
    const groups: number[] = [];
    const writer = new GroupedWriter<Note>(async (notes) => {
      groups.push(notes.length);
      await insertNotes(notes);
    });
    const healthy = ['b1', 'b2', 'b3', 'b4', 'b5'].map((body) => ({ partner: 'B', body }));
    const notes = [healthy[0]!, healthy[1]!, { partner: 'A', body: POISON }, ...healthy.slice(2)];
    const outcomes = await Promise.allSettled(notes.map((note) => writer.add(note)));

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const refusal = (outcomes[2] as PromiseRejectedResult).reason;
    expect(refusal).toBeInstanceOf(pg.DatabaseError);
    expect(refusal.code).toBe('22021');
    // Tried together once, then each row alone.
    expect(groups).toEqual([6, 1, 1, 1, 1, 1, 1]);
    expect(await stored('B')).toEqual(['b1', 'b2', 'b3', 'b4', 'b5']);
    expect(await stored('A')).toEqual([]);
  });

  it('keeps the keys of inputs tried again alone: an input sharing one waits until they are answered', async () => {
    const events: string[] = [];
    const calls = new GroupedCalls<Note, string>(
      async (notes) => {
        const names = notes.map((note) => note.body.replace(POISON, 'poison')).join('+');
        events.push(`start ${names}`);
        try {
          await insertNotes(notes);
        } finally {
          events.push(`end ${names}`);
        }
        return notes.map((note) => note.body);
      },
      { inFlight: 2, keysOf: (note) => [note.partner] },
    );
    const first = [calls.call({ partner: 'C', body: 'c1' }), calls.call({ partner: 'D', body: POISON })];
    await new Promise((resolve) => setImmediate(resolve));
    // Arrives while the first group runs: a second group may run beside it, but not with C's key.
    const later = calls.call({ partner: 'C', body: 'c2' });
    const outcomes = await Promise.allSettled([...first, later]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(events.indexOf('start c2')).toBeGreaterThan(events.indexOf('end c1'));
    expect(events.slice(0, 2)).toEqual(['start c1+poison', 'end c1+poison']);
    expect(await stored('C')).toEqual(['c1', 'c2']);
    expect(await stored('D')).toEqual([]);
  });

  it('tries nothing again when the outcome is unknown (the connection lost): every input gets the error', async () => {
    let runs = 0;
    const calls = new GroupedCalls<Note, undefined>(async (notes) => {
      runs += 1;
      const client = new pg.Client({ connectionString: database.url });
      client.on('error', () => undefined);
      await client.connect();
      const running = insertNotesWith(client, notes);
      // The socket goes away once the statement is sent: whether its rows were written is unknown.
      (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      await running;
      return notes.map(() => undefined);
    });
    const outcomes = await Promise.allSettled([
      calls.call({ partner: 'E', body: 'e1' }),
      calls.call({ partner: 'E', body: 'e2' }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect((outcomes[0] as PromiseRejectedResult).reason.message).toMatch(/Connection terminated/);
    expect(runs).toBe(1);
  });
});

describe('rowsInInputOrder', () => {
  it('puts rows at their 1-based ord and leaves inputs without a row undefined', () => {
    const rows = [
      { ord: 3, value: 'c' },
      { ord: 1, value: 'a' },
    ];
    expect(rowsInInputOrder(rows, 4)).toEqual([rows[1], undefined, rows[0], undefined]);
  });
});
