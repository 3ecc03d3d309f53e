import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate } from '../../src/platform/db/migrate.ts';
import { createPool, type Db } from '../../src/platform/db/pool.ts';

export interface TestDatabase {
  db: Db;
  /** The same database through async-commit connections, as AppContext.asyncCommitDb. */
  asyncCommitDb: Db;
  url: string;
  name: string;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the test server; migrated unless `migrated: false`. */
export async function freshDatabase(
  options: { migrated?: boolean; poolSize?: number } = {},
): Promise<TestDatabase> {
  const name = `rampart_t_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(inject('adminDatabaseUrl'), name);
  const db = createPool({ connectionString: url, max: options.poolSize ?? 10, statementTimeoutMs: 10_000 });
  const asyncCommitDb = createPool({
    connectionString: url,
    max: 4,
    statementTimeoutMs: 10_000,
    synchronousCommit: false,
  });
  if (options.migrated !== false) await migrate(db);
  return {
    db,
    asyncCommitDb,
    url,
    name,
    drop: async () => {
      await db.end();
      await asyncCommitDb.end();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * Columns written after any authenticated request, refused or not, and off its path: a key's
 * "last used" (identity/key-usage.ts) moves whatever the request's fate, so "changed nothing"
 * leaves it out.
 */
export const BOOKKEEPING_COLUMNS: Record<string, string[]> = { api_keys: ['last_used_at'] };

/** Every table's rows, for "a rejected request changed nothing" assertions. */
export async function snapshotTables(
  db: Db,
  ignore: string[] = ['operator_audit'],
): Promise<Record<string, unknown[]>> {
  const { rows } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
     ORDER BY table_name`,
  );
  const snapshot: Record<string, unknown[]> = {};
  for (const { table_name } of rows) {
    if (ignore.includes(table_name)) continue;
    const result = await db.query(`SELECT * FROM ${pg.escapeIdentifier(table_name)} ORDER BY 1`);
    const skipped = BOOKKEEPING_COLUMNS[table_name] ?? [];
    for (const row of result.rows) for (const column of skipped) delete row[column];
    snapshot[table_name] = result.rows;
  }
  return snapshot;
}
