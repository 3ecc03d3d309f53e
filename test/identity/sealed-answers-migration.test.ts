import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/platform/db/migrate.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { migrationDir } from '../helpers/migrations.ts';

// Migration 031: answers stored in clear that carry a secret cannot be sealed by SQL, so they go;
// every other stored answer stays, replayable as before.
let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase({ migrated: false });
});
afterAll(async () => database.drop());

const stored = {
  apiKey: ['AC_PARTNER>AC_PARTNER POST /v2/apiKeys', '{"apiKey":"AK-1","secretKey":"SK-SECRET-1"}'],
  master: [
    'operator POST /operator/v1/accounts',
    '{"accountId":"AC_1","secretKey":"SK-2","webhookSecret":"WH-2"}',
  ],
  // Whatever the route, an answer naming a secret field goes too.
  otherRoute: ['AC_PARTNER>AC_PARTNER POST /v3/somewhere', '{"webhookSecret":"WH-3"}'],
  transfer: ['AC_PARTNER>AC_PARTNER POST /v3/transfers', '{"id":"TF_1","message":"no secrets here"}'],
  session: ['session:abc POST /v2/sessions/auth/key', '{"apiKey":"AK-4","authenticatedAs":null}'],
} as const;

describe('migration 031 (sealed idempotent answers)', () => {
  it('deletes the stored answers that hold a secret and keeps the others', async () => {
    const files = await readMigrations();
    const before = await migrationDir(
      Object.fromEntries(files.filter((f) => f.version < '031').map((f) => [f.name, f.sql])),
    );
    try {
      await migrate(database.db, before.dir);
    } finally {
      await before.remove();
    }
    for (const [name, [scope, body]] of Object.entries(stored)) {
      await database.db.query(
        `INSERT INTO idempotency_keys (scope, key, request_hash, response_status, response_body, expires_at)
         VALUES ($1, $2, 'hash', 200, $3, now() + interval '1 hour')`,
        [scope, name, body],
      );
    }

    expect(await migrate(database.db)).toEqual(files.filter((f) => f.version >= '031').map((f) => f.name));
    const { rows } = await database.db.query(
      'SELECT key, response_body, response_sealed FROM idempotency_keys ORDER BY key',
    );
    expect(rows).toEqual([
      { key: 'session', response_body: stored.session[1], response_sealed: null },
      { key: 'transfer', response_body: stored.transfer[1], response_sealed: null },
    ]);
  });

  it('holds each answer exactly once: in clear or sealed', async () => {
    const insert = (body: string | null, sealed: Buffer | null) =>
      database.db.query(
        `INSERT INTO idempotency_keys (scope, key, request_hash, response_status, response_body, response_sealed, expires_at)
         VALUES ('s', $1, 'hash', 200, $2, $3, now())`,
        [`k-${Math.random()}`, body, sealed],
      );
    await expect(insert(null, null)).rejects.toThrow(/idempotency_keys_one_body/);
    await expect(insert('{}', Buffer.from('box'))).rejects.toThrow(/idempotency_keys_one_body/);
    await insert(null, Buffer.from('box'));
  });
});
