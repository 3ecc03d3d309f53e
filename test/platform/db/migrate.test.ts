import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, migrationsComplete, readMigrations } from '../../../src/platform/db/migrate.ts';
import { createPool, type Db } from '../../../src/platform/db/pool.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { migrationDir as ownMigrationDir } from '../../helpers/migrations.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function unmigrated(): Promise<TestDatabase> {
  const database = await freshDatabase({ migrated: false });
  cleanups.push(() => database.drop());
  return database;
}

function extraPool(database: TestDatabase, max = 2): Db {
  const pool = createPool({ connectionString: database.url, max, statementTimeoutMs: 10_000 });
  cleanups.push(() => pool.end());
  return pool;
}

async function tableExists(db: Db, name: string): Promise<boolean> {
  const { rows } = await db.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [name]);
  return rows[0]?.found !== null;
}

async function appliedVersions(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ version: string }>(
    'SELECT version FROM schema_migrations ORDER BY version',
  );
  return rows.map((row) => row.version);
}

async function migrationDir(files: Record<string, string>): Promise<string> {
  const made = await ownMigrationDir(files);
  cleanups.push(made.remove);
  return made.dir;
}

describe('migrate', () => {
  it('lets two processes migrate one fresh database at once: both resolve, each version applied once', async () => {
    const database = await unmigrated();
    const other = extraPool(database);
    const files = await readMigrations();
    expect(files.length).toBeGreaterThan(0);

    const [first, second] = await Promise.all([migrate(database.db), migrate(other)]);
    // One of them did the work, the other found nothing left; together, every file exactly once.
    expect([...first, ...second].sort()).toEqual(files.map((file) => file.name));
    expect(first.length === 0 || second.length === 0).toBe(true);
    expect(await appliedVersions(database.db)).toEqual(files.map((file) => file.version));
    expect(await tableExists(database.db, 'jobs')).toBe(true);
    expect(await migrationsComplete(database.db, files.at(-1)!.version)).toBe(true);

    expect(await migrate(database.db)).toEqual([]);
    expect(await migrate(other)).toEqual([]);
    expect(await appliedVersions(database.db)).toEqual(files.map((file) => file.version));
  });

  it('rolls a failing migration back, names it, and applies it once fixed', async () => {
    const database = await unmigrated();
    const dir = await migrationDir({
      '001_first.sql': 'CREATE TABLE first_table (id int);',
      '002_broken.sql': 'CREATE TABLE half_done (id int);\nSELECT 1 / 0;',
      '003_after.sql': 'CREATE TABLE after_table (id int);',
      'README.md': 'not a migration',
      '4_badname.sql': 'SELECT nonsense;',
    });

    await expect(migrate(database.db, dir)).rejects.toThrow(/002_broken\.sql/);
    expect(await appliedVersions(database.db)).toEqual(['001']);
    expect(await tableExists(database.db, 'first_table')).toBe(true);
    expect(await tableExists(database.db, 'half_done')).toBe(false);
    expect(await tableExists(database.db, 'after_table')).toBe(false);
    expect(await migrationsComplete(database.db, '003')).toBe(false);

    // The advisory lock was released: another pool can migrate (it would wait forever otherwise).
    await writeFile(path.join(dir, '002_broken.sql'), 'CREATE TABLE half_done (id int);');
    const other = extraPool(database);
    expect(await migrate(other, dir)).toEqual(['002_broken.sql', '003_after.sql']);
    expect(await appliedVersions(database.db)).toEqual(['001', '002', '003']);
    expect(await tableExists(database.db, 'half_done')).toBe(true);
    expect(await migrationsComplete(database.db, '003')).toBe(true);
  });

  it('reads only NNN_name.sql files, in order', async () => {
    const dir = await migrationDir({
      '010_later.sql': 'SELECT 1;',
      '002_earlier.sql': 'SELECT 2;',
      'notes.txt': '',
      '003-dash.sql': 'SELECT 3;',
    });
    expect((await readMigrations(dir)).map((file) => [file.version, file.name])).toEqual([
      ['002', '002_earlier.sql'],
      ['010', '010_later.sql'],
    ]);
  });

  it('gives the connection back with its statement timeout restored', async () => {
    const database = await unmigrated();
    const single = createPool({ connectionString: database.url, max: 1, statementTimeoutMs: 1234 });
    cleanups.push(() => single.end());
    await migrate(single);
    const { rows } = await single.query<{ statement_timeout: string }>('SHOW statement_timeout');
    expect(rows[0]?.statement_timeout).toBe('1234ms');
    const locks = await single.query(
      'SELECT 1 FROM pg_locks WHERE locktype = $1 AND pid = pg_backend_pid()',
      ['advisory'],
    );
    expect(locks.rows).toEqual([]);
  });
});
