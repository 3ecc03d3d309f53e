import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

// Migration 012 moved the one-column rules of reservations from table CHECKs to domains: the
// database must still refuse what they refused (SQLSTATE 23514), whoever writes the row.
let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => database.drop());

const VALID_ID = '23456789ABCDEFGHJKLM';

function insert(overrides: { id?: string; sourceAmount?: string | null; rate?: string | null }) {
  const sourceAmount = overrides.sourceAmount === undefined ? '10' : overrides.sourceAmount;
  return database.db.query(
    `INSERT INTO reservations (id, partner_id, account_id, request, quote_locked, source_amount,
       source_amount_without_fees, dest_amount, exchange_rate, created_at, expires_at)
     VALUES ($1, 'AC_X', 'AC_X', '{}', $2::numeric IS NOT NULL, $2::numeric, $2::numeric, $2::numeric, $3::numeric,
       now(), now() + interval '15 minutes')`,
    [overrides.id ?? VALID_ID, sourceAmount, overrides.rate === undefined ? '1' : overrides.rate],
  );
}

describe('reservation rows the database refuses (domains of migration 012)', () => {
  it.each([
    ['an id outside the alphabet', { id: 'not-an-id' }],
    ['an id of the wrong length', { id: '23456789ABCDEFGHJKL' }],
    ['a zero amount', { sourceAmount: '0' }],
    ['a negative amount', { sourceAmount: '-1' }],
    ['a zero exchange rate', { rate: '0' }],
  ])('refuses %s', async (_name, overrides) => {
    await expect(insert(overrides)).rejects.toMatchObject({ code: '23514' });
    const { rows } = await database.db.query('SELECT count(*)::int AS n FROM reservations');
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('accepts a well-formed row (the refusals above are the rules, not the statement)', async () => {
    await insert({});
    await insert({ id: '3456789ABCDEFGHJKLMN', sourceAmount: null, rate: null });
    const { rows } = await database.db.query('SELECT count(*)::int AS n FROM reservations');
    expect(rows).toEqual([{ n: 2 }]);
  });
});
