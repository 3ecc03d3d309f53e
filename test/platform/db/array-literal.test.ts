import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral, withArrayLiterals } from '../../../src/platform/db/array-literal.ts';
import { createPool, type Db } from '../../../src/platform/db/pool.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

const TRICKY = [
  'plain',
  'WO_22QR5CWYH9R',
  '104.41',
  '',
  'two words',
  'tab\there',
  'line\nbreak',
  'a,b',
  '{braces}',
  'say "hi"',
  'back\\slash',
  '\\"',
  'NULL',
  'null',
  'Nullable',
  '{"a":[1,"x"]}',
  'ünïcödé €',
  ' leading',
  null,
];

describe('arrayLiteral', () => {
  it('writes safe elements bare and quotes and escapes the rest', () => {
    expect(arrayLiteral(['a', 'b c', null, '', 'NULL', 'x"y', 'p\\q'])).toBe(
      '{a,"b c",NULL,"","NULL","x\\"y","p\\\\q"}',
    );
    expect(arrayLiteral([1, -2.5, true, undefined])).toBe('{1,-2.5,true,NULL}');
    expect(
      arrayLiteral([
        [1, 2],
        [3, 4],
      ]),
    ).toBe('{{1,2},{3,4}}');
    expect(arrayLiteral([])).toBe('{}');
  });

  it('leaves arrays with elements it does not write to pg', () => {
    const when = new Date(0);
    expect(arrayLiteral([when])).toBeUndefined();
    expect(arrayLiteral([['a'], [Buffer.from('x')]])).toBeUndefined();
    const params = [[when], ['a'], 5, 'text'];
    const written = withArrayLiterals(params);
    expect(written[0]).toBe(params[0]);
    expect(written.slice(1)).toEqual(['{a}', 5, 'text']);
    const plain = [5, 'text', null];
    expect(withArrayLiterals(plain)).toBe(plain);
  });
});

describe('array parameters through PostgreSQL', () => {
  let database: TestDatabase;
  let pool: Db;
  let plain: pg.Client;

  beforeAll(async () => {
    database = await freshDatabase({ migrated: false });
    pool = createPool({ connectionString: database.url, max: 1, statementTimeoutMs: 10_000 });
    plain = new pg.Client({ connectionString: database.url });
    await plain.connect();
  });

  afterAll(async () => {
    await plain.end();
    await pool.end();
    await database.drop();
  });

  /** The statement's answer through our pool, checked against pg's own writer on a plain client. */
  async function roundTrip(text: string, values: unknown[]): Promise<unknown> {
    const ours = (await pool.query(text, values)).rows[0];
    const pgs = (await plain.query(text, values)).rows[0];
    expect(ours).toEqual(pgs);
    return ours;
  }

  it('reads back every text element as sent', async () => {
    expect(await roundTrip('SELECT $1::text[] AS a', [TRICKY])).toEqual({ a: TRICKY });
  });

  it('reads back numbers, booleans, multi-dimensional arrays and dates as pg sends them', async () => {
    expect(
      await roundTrip('SELECT $1::numeric[]::text[] AS n', [[1, '0.000333333333333333333', -2.5, null]]),
    ).toEqual({
      n: ['1', '0.000333333333333333333', '-2.5', null],
    });
    expect(
      await roundTrip('SELECT $1::bool[] AS b, $2::int[] AS m', [
        [true, false],
        [
          [1, 2],
          [3, 4],
        ],
      ]),
    ).toEqual({
      b: [true, false],
      m: [
        [1, 2],
        [3, 4],
      ],
    });
    const when = new Date('2026-11-27T12:00:00.123Z');
    expect(await roundTrip('SELECT $1::timestamptz[] AS t', [[when]])).toEqual({ t: [when] });
  });

  it('reads numeric arrays back as exact decimal text, never floats', async () => {
    const { rows } = await pool.query<{ n: unknown }>('SELECT $1::numeric[] AS n', [
      ['0.1000000000000000000001', '104.41', null],
    ]);
    expect(rows[0]!.n).toEqual(['0.1000000000000000000001', '104.41', null]);
  });

  it('keeps the elements of a group statement apart (unnest)', async () => {
    const { rows } = await pool.query<{ v: string | null }>(
      'SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, ord) ORDER BY ord',
      [TRICKY],
    );
    expect(rows.map((row) => row.v)).toEqual(TRICKY);
  });
});
