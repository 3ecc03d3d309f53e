import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyMigration, beginMigrating, endMigrating, latestAppliedVersion } from './migrations-store.ts';
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
    const applied = await beginMigrating(client);
    const done: string[] = [];
    for (const file of files.filter((f) => !applied.has(f.version))) {
      try {
        await applyMigration(client, file.version, file.name, file.sql);
      } catch (error) {
        throw new Error(`migration ${file.name} failed: ${(error as Error).message}`);
      }
      done.push(file.name);
    }
    return done;
  } finally {
    await endMigrating(client);
    client.release();
  }
}

/** True when every migration file on disk is recorded as applied (used by /readyz). */
export async function migrationsComplete(db: Db, expectedLatest: string): Promise<boolean> {
  return (await latestAppliedVersion(db)) === expectedLatest;
}
