import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findReservationById } from '../../src/orders/store.ts';
import { migrate, readMigrations } from '../../src/platform/db/migrate.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

// Migration 029 moves a reservation's use from its own row (state, used_at) to reservation_uses:
// a database that used reservations before it must read exactly as before after it.
let database: TestDatabase;
let dir: string;
beforeAll(async () => {
  database = await freshDatabase({ migrated: false });
  dir = await mkdtemp(path.join(tmpdir(), 'rampart-029-'));
});
afterAll(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

const USED = '23456789ABCDEFGHJKLM';
const UNUSED = '3456789ABCDEFGHJKLMN';

describe('migration 029 (reservation uses)', () => {
  it('keeps which reservations were used, and when', async () => {
    const files = await readMigrations();
    for (const file of files.filter((f) => f.version < '029'))
      await writeFile(path.join(dir, file.name), file.sql);
    await migrate(database.db, dir);
    await database.db.query(
      `INSERT INTO reservations (id, partner_id, account_id, request, quote_locked, state, used_at, created_at, expires_at)
       VALUES ($1, 'AC_X', 'AC_X', '{}', false, 'used', '2026-11-27T10:00:00Z', now(), now() + interval '15 minutes'),
              ($2, 'AC_X', 'AC_X', '{}', false, 'valid', NULL, now(), now() + interval '15 minutes')`,
      [USED, UNUSED],
    );

    expect(await migrate(database.db)).toEqual(files.filter((f) => f.version >= '029').map((f) => f.name));
    const { rows } = await database.db.query<{ reservation_id: string; used_at: Date }>(
      'SELECT reservation_id, used_at FROM reservation_uses',
    );
    expect(rows).toEqual([{ reservation_id: USED, used_at: new Date('2026-11-27T10:00:00Z') }]);
    expect(await findReservationById(database.db, USED)).toMatchObject({ used: true });
    expect(await findReservationById(database.db, UNUSED)).toMatchObject({ used: false });
  });
});
