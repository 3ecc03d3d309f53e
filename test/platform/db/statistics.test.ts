import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

// Migration 030: jsonb columns are payloads no statement filters, joins or sorts by, so ANALYZE
// skips them. A new jsonb column must say which it is: add it to a migration like 030, or, when a
// statement comes to filter by it, to FILTERED_JSONB below with its statistics kept.
const FILTERED_JSONB: string[] = [];

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => database.drop());

describe('planner statistics (migration 030)', () => {
  it('are not collected for the jsonb payload columns', async () => {
    const { rows } = await database.db.query<{ column: string; target: number }>(
      `SELECT c.relname || '.' || a.attname AS column, a.attstattarget AS target
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.atttypid = 'jsonb'::regtype
         AND a.attnum > 0 AND NOT a.attisdropped
       ORDER BY 1`,
    );
    expect(rows.length).toBeGreaterThan(10);
    const collected = rows.filter((row) => row.target !== 0 && !FILTERED_JSONB.includes(row.column));
    expect(collected).toEqual([]);
  });

  it('are still collected for the other columns, and ANALYZE leaves the payloads out', async () => {
    await database.db.query(
      `INSERT INTO jobs (kind, payload, state) VALUES ('test.stats', '{"orderIds":["WO_1"]}', 'done')`,
    );
    await database.db.query('ANALYZE jobs');
    const { rows } = await database.db.query<{ attname: string }>(
      `SELECT attname FROM pg_stats WHERE schemaname = 'public' AND tablename = 'jobs' ORDER BY attname`,
    );
    const analyzed = rows.map((row) => row.attname);
    expect(analyzed).toContain('kind');
    expect(analyzed).not.toContain('payload');
  });
});
