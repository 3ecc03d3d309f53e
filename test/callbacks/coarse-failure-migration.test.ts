import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/platform/db/migrate.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { migrationDir } from '../helpers/migrations.ts';

// Migration 035 rewrites the error texts stored in subscriptions' `failure` (which partners read)
// to the coarse outcomes the worker now stores.
let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase({ migrated: false });
});
afterAll(async () => database.drop());

const STORED: [string, string | null, string | null][] = [
  ['DA_A', 'connect ECONNREFUSED 127.0.0.1:5432', 'unreachable'],
  ['DA_B', 'socket hang up', 'unreachable'],
  ['DA_C', 'HTTP 401', 'refusedByReceiver (HTTP 401)'],
  ['DA_D', 'HTTP 302 (redirects are not followed)', 'refusedByReceiver (HTTP 302)'],
  ['DA_E', 'timed out after 10000 ms', 'timedOut'],
  ['DA_F', 'localhost resolves to a forbidden address', 'unreachable'],
  ['DA_G', 'getaddrinfo ENOTFOUND hooks.example.com', 'unreachable'],
  ['DA_H', null, null],
];

describe('migration 035 (coarse callback failures)', () => {
  it('leaves partners only delivered / refusedByReceiver (HTTP n) / unreachable / timedOut', async () => {
    const files = await readMigrations();
    const before = await migrationDir(
      Object.fromEntries(files.filter((f) => f.version < '035').map((f) => [f.name, f.sql])),
    );
    try {
      await migrate(database.db, before.dir);
    } finally {
      await before.remove();
    }
    for (const [id, failure] of STORED) {
      await database.db.query(
        `INSERT INTO callback_subscriptions (id, partner_id, account_id, subscribe_to, notify_target, failure, fail_count, created_at)
         VALUES ($1, 'AC_X', 'AC_X', 'account:AC_X', 'https://hooks.example.com/', $2, $3, now())`,
        [id, failure, failure === null ? 0 : 2],
      );
    }
    await migrate(database.db);
    const { rows } = await database.db.query<{ id: string; failure: string | null; fail_count: number }>(
      'SELECT id, failure, fail_count FROM callback_subscriptions ORDER BY id',
    );
    expect(rows).toEqual(
      STORED.map(([id, stored, coarse]) => ({ id, failure: coarse, fail_count: stored === null ? 0 : 2 })),
    );
  });
});
