import type { Queryable, Tx } from './pool.ts';

/**
 * The SQL of the migration record (`schema_migrations`) and of applying one migration; which
 * migrations run, and in what order, lives in migrate.ts. Owns no database functions.
 */

// Arbitrary constant shared by every Rampart process: only one of them migrates at a time.
const MIGRATION_LOCK_KEY = 7_264_011_589;

/**
 * Takes the migration lock on `client`'s session (waiting for another process that holds it),
 * with no statement timeout: migrations may run longer than a request may. Answers the versions
 * already applied, creating the record table on a new database.
 */
export async function beginMigrating(client: Tx): Promise<Set<string>> {
  await client.query('SET statement_timeout = 0');
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version text PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  const { rows } = await client.query<{ version: string }>('SELECT version FROM schema_migrations');
  return new Set(rows.map((row) => row.version));
}

/** One migration's SQL and its record, in one transaction: both or neither. */
export async function applyMigration(client: Tx, version: string, name: string, sql: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(sql);
    await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, name]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/** Releases what beginMigrating took; never throws (the connection may be gone). */
export async function endMigrating(client: Tx): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
  await client.query('RESET statement_timeout').catch(() => undefined);
}

/** The latest version recorded as applied, or null on a database never migrated. */
export async function latestAppliedVersion(q: Queryable): Promise<string | null> {
  const { rows } = await q.query<{ latest: string | null }>(
    'SELECT max(version) AS latest FROM schema_migrations',
  );
  return rows[0]?.latest ?? null;
}
