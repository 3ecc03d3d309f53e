import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Db } from '../../../src/platform/db/pool.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

let database: TestDatabase;
let pool: Db;

beforeAll(async () => {
  database = await freshDatabase({ migrated: false });
  // One connection, so every statement below runs in the session whose prepared statements we read.
  pool = createPool({ connectionString: database.url, max: 1, statementTimeoutMs: 10_000 });
});

afterAll(async () => {
  await pool.end();
  await database.drop();
});

async function preparedTexts(): Promise<string[]> {
  const { rows } = await pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
  return rows.map((row) => row.statement);
}

describe('PreparingClient', () => {
  it('prepares a parameterised statement once per connection and reuses it, under a forced generic plan', async () => {
    const text = 'SELECT $1::int + 1 AS next';
    expect((await pool.query(text, [1])).rows).toEqual([{ next: 2 }]);
    expect((await pool.query(text, [41])).rows).toEqual([{ next: 42 }]);
    expect((await preparedTexts()).filter((statement) => statement === text)).toHaveLength(1);
    const { rows } = await pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode');
    expect(rows[0]?.plan_cache_mode).toBe('force_generic_plan');
  });

  it('plans with random_page_cost 1.1, so a parameter array joined to a table of a few thousand rows probes its key', async () => {
    const { rows } = await pool.query<{ random_page_cost: string }>('SHOW random_page_cost');
    expect(rows[0]?.random_page_cost).toBe('1.1');
    await pool.query(
      `CREATE TABLE probe_rows AS SELECT n AS id, n % 7 AS v FROM generate_series(1, 3000) AS n;
       ALTER TABLE probe_rows ADD PRIMARY KEY (id); ANALYZE probe_rows`,
    );
    const text = `EXPLAIN UPDATE probe_rows AS p SET v = v + 1 FROM unnest($1::int[]) AS u(id) WHERE p.id = u.id`;
    const plan = (await pool.query<{ 'QUERY PLAN': string }>(text, [[1, 2, 3]])).rows
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    expect(plan).toContain('Index Scan using probe_rows_pkey');
    expect(plan).not.toContain('Seq Scan on probe_rows');
  });

  it('keeps statements without parameters on the simple protocol (not prepared)', async () => {
    await pool.query('SELECT 7 AS seven');
    expect(await preparedTexts()).not.toContain('SELECT 7 AS seven');
  });

  it('stops preparing past 1000 distinct statements on a connection, and still runs them', async () => {
    for (let index = 0; index < 1005; index++) {
      const { rows } = await pool.query<{ n: number }>(`SELECT $1::int AS n /* ${index} */`, [index]);
      expect(rows[0]?.n).toBe(index);
    }
    expect((await preparedTexts()).length).toBe(1000);
  });
});
