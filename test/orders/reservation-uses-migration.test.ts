import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findReservationById } from '../../src/orders/store.ts';
import { migrate, readMigrations } from '../../src/platform/db/migrate.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { migrationDir } from '../helpers/migrations.ts';

// Migration 029 moves a reservation's use from its own row (state, used_at) to reservation_uses:
// a database that used reservations before it must read exactly as before after it.
let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase({ migrated: false });
});
afterAll(async () => database.drop());

const USED = '23456789ABCDEFGHJKLM';
const UNUSED = '3456789ABCDEFGHJKLMN';

describe('migration 029 (reservation uses)', () => {
  it('keeps which reservations were used, and when', async () => {
    const files = await readMigrations();
    const before = await migrationDir(
      Object.fromEntries(files.filter((f) => f.version < '029').map((f) => [f.name, f.sql])),
    );
    try {
      await migrate(database.db, before.dir);
    } finally {
      await before.remove();
    }
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
