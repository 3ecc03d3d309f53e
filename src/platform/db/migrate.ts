import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './pool.ts';

/**
 * The repository's migrations/ folder, found by walking up from this module: the same code runs
 * from src/platform/db (tsx) and from the bundle in dist/ (npm start), at different depths.
 */
function findMigrationsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'migrations');
    if (existsSync(path.join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('migrations/ folder not found above the Rampart sources');
    dir = parent;
  }
}

export const MIGRATIONS_DIR = findMigrationsDir();

// Arbitrary constant shared by every Rampart process: only one of them migrates at a time.
const MIGRATION_LOCK_KEY = 7_264_011_589;

export interface MigrationFile {
  version: string;
  name: string;
  sql: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((name) => /^\d{3}_[a-z0-9_]+\.sql$/.test(name)).sort();
  return Promise.all(
    names.map(async (name) => ({
      version: name.slice(0, 3),
      name,
      sql: await readFile(path.join(dir, name), 'utf8'),
    })),
  );
}

/**
 * Applies pending forward-only migrations, each in its own transaction, while holding a
 * session advisory lock: a second process starting at the same moment waits, then finds
 * nothing left to do. Returns the names applied by this call.
 */
export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = await readMigrations(dir);
  const client = await db.connect();
  try {
    // Migrations may legitimately run longer than the request statement timeout.
    await client.query('SET statement_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: string }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const done: string[] = [];
    for (const file of files.filter((f) => !applied.has(f.version))) {
      await client.query('BEGIN');
      try {
        await client.query(file.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          file.version,
          file.name,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file.name} failed: ${(error as Error).message}`);
      }
      done.push(file.name);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.query('RESET statement_timeout').catch(() => undefined);
    client.release();
  }
}

/** True when every migration file on disk is recorded as applied (used by /readyz). */
export async function migrationsComplete(db: Db, expectedLatest: string): Promise<boolean> {
  const { rows } = await db.query<{ latest: string | null }>(
    'SELECT max(version) AS latest FROM schema_migrations',
  );
  return rows[0]?.latest === expectedLatest;
}
