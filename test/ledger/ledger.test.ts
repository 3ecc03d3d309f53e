import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditLedger,
  balancesOf,
  combinedEntries,
  entryArguments,
  holdsDueForExpiry,
  type NewEntry,
  placeHold,
  postEntry,
  postHold,
  voidHold,
} from '../../src/ledger/service.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { Money } from '../../src/platform/money.ts';
import { freshDatabase, snapshotTables, type TestDatabase } from '../helpers/db.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase({ poolSize: 25 });
});
afterAll(async () => database.drop());

const m = (value: string | number) => new Money(value);
let ownerCounter = 0;
const newOwner = () => `account:AC_TEST${String(++ownerCounter).padStart(6, '0')}`;

async function fund(owner: string, amount: string, currency = 'USD') {
  await withTransaction(database.db, (tx) =>
    postEntry(tx, {
      kind: 'test.credit',
      postings: [
        { owner: 'external:bank', currency, amount: m(amount).negated() },
        { owner, currency, amount: m(amount) },
      ],
    }),
  );
}

async function balance(owner: string, currency = 'USD') {
  const { totalBalances, availableBalances } = await balancesOf(database.db, owner);
  return {
    total: totalBalances[currency]?.toFixed() ?? '0',
    available: availableBalances[currency]?.toFixed() ?? '0',
  };
}

function transfer(from: string, to: string, amount: string, currency = 'USD') {
  return withTransaction(database.db, (tx) =>
    postEntry(tx, {
      kind: 'test.transfer',
      postings: [
        { owner: from, currency, amount: m(amount).negated() },
        { owner: to, currency, amount: m(amount) },
      ],
    }),
  );
}

async function expectHealthy() {
  expect(await auditLedger(database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
}

describe('journal entries', () => {
  it('move balances exactly, with decimals of the currency scale', async () => {
    const alice = newOwner();
    const bob = newOwner();
    await fund(alice, '100.10');
    await transfer(alice, bob, '0.01');
    await fund(alice, '0.000000000000000001', 'ETH');
    expect(await balance(alice)).toEqual({ total: '100.09', available: '100.09' });
    expect(await balance(bob)).toEqual({ total: '0.01', available: '0.01' });
    expect(await balance(alice, 'ETH')).toEqual({
      total: '0.000000000000000001',
      available: '0.000000000000000001',
    });
    await expectHealthy();
  });

  it('refuse an entry that does not balance, before touching the database', async () => {
    const before = await snapshotTables(database.db);
    await expect(
      withTransaction(database.db, (tx) =>
        postEntry(tx, {
          kind: 'test.bad',
          postings: [
            { owner: 'external:bank', currency: 'USD', amount: m('-1') },
            { owner: newOwner(), currency: 'USD', amount: m('2') },
          ],
        }),
      ),
    ).rejects.toThrow(/does not balance/);
    expect(await snapshotTables(database.db)).toEqual(before);
  });

  it('are refused by the database itself when unbalanced postings are written directly', async () => {
    await expect(
      withTransaction(database.db, async (tx) => {
        const { rows } = await tx.query<{ id: number }>(
          "INSERT INTO ledger_entries (kind) VALUES ('raw') RETURNING id",
        );
        await tx.query(
          "INSERT INTO ledger_postings (entry_id, owner, currency, amount) VALUES ($1, 'x', 'USD', 5)",
          [rows[0]!.id],
        );
      }),
    ).rejects.toThrow(/does not balance/);
    await expectHealthy();
  });

  it('are refused by the database when balanced postings name an entry that does not exist', async () => {
    await expect(
      database.db.query(
        `INSERT INTO ledger_postings (entry_id, owner, currency, amount)
         VALUES (987654321, 'x', 'USD', 5), (987654321, 'y', 'USD', -5)`,
      ),
    ).rejects.toThrow(/does not exist/);
    await expectHealthy();
  });

  it('are append-only', async () => {
    const owner = newOwner();
    await fund(owner, '5');
    await expect(
      database.db.query('UPDATE ledger_postings SET amount = 6 WHERE owner = $1', [owner]),
    ).rejects.toThrow(/append-only/);
    await expect(database.db.query('DELETE FROM ledger_entries')).rejects.toThrow(/append-only/);
  });

  it('never take a customer below zero: InsufficientFundsException and nothing changes', async () => {
    const owner = newOwner();
    await fund(owner, '10');
    const before = await snapshotTables(database.db);
    const error = await transfer(owner, newOwner(), '10.01').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).type).toBe('InsufficientFundsException');
    expect(await snapshotTables(database.db)).toEqual(before);
  });

  it('let system owners go negative (they mirror the outside world)', async () => {
    await fund(newOwner(), '1');
    const { totalBalances } = await balancesOf(database.db, 'external:bank');
    expect(totalBalances.USD?.isNegative()).toBe(true);
  });
});

describe('several entries in one statement (ledger_post_entries)', () => {
  const postEntries = (entries: NewEntry[]) => {
    const a = combinedEntries(entries.map(entryArguments));
    return database.db.query(
      'SELECT ledger_post_entries($1, $2, $3, $4::int[], $5::text[], $6::text[], $7::numeric[]) AS ids',
      [a.kinds, a.references, a.memos, a.postingEntries, a.owners, a.currencies, a.amounts],
    );
  };
  const move = (from: string, to: string, amount: string) => ({
    kind: 'test.transfer',
    postings: [
      { owner: from, currency: 'USD', amount: m(amount).negated() },
      { owner: to, currency: 'USD', amount: m(amount) },
    ],
  });

  it('move every balance once, by the sum of its postings', async () => {
    const [a, b, c] = [newOwner(), newOwner(), newOwner()];
    await fund(a, '10');
    const { rows } = await postEntries([move(a, b, '3'), move(b, c, '1'), move(a, c, '2.5')]);
    expect(rows[0].ids).toHaveLength(3);
    expect(await balance(a)).toEqual({ total: '4.5', available: '4.5' });
    expect(await balance(b)).toEqual({ total: '2', available: '2' });
    expect(await balance(c)).toEqual({ total: '3.5', available: '3.5' });
    await expectHealthy();
  });

  it('apply the entries in order: a later credit does not cover an earlier overdraft', async () => {
    const [a, b] = [newOwner(), newOwner()];
    await fund(b, '5');
    const before = await snapshotTables(database.db);
    // Netted, a ends at zero; in order, the first entry takes it to -5.
    await expect(postEntries([move(a, b, '5'), move(b, a, '5')])).rejects.toMatchObject({
      code: '23514',
      constraint: 'ledger_customer_never_negative',
    });
    expect(await snapshotTables(database.db)).toEqual(before);
    // The other way round each entry is funded when it comes.
    await postEntries([move(b, a, '5'), move(a, b, '5')]);
    expect(await balance(a)).toEqual({ total: '0', available: '0' });
    expect(await balance(b)).toEqual({ total: '5', available: '5' });
    await expectHealthy();
  });

  it('refuse postings out of (owner, currency) order', async () => {
    const [a, b] = [newOwner(), newOwner()].sort().reverse();
    await fund(a!, '5');
    await expect(
      database.db.query(
        `SELECT ledger_post_entries('{t}', '{NULL}', '{NULL}', '{1,1}', $1::text[], '{USD,USD}', '{-1,1}')`,
        [[a, b]],
      ),
    ).rejects.toThrow(/sorted/);
  });
});

describe('concurrent debits', () => {
  it('of one balance never overdraw it: 25 debits of 10 from 100 → exactly 10 succeed', async () => {
    const payer = newOwner();
    const payee = newOwner();
    await fund(payer, '100');
    const results = await Promise.allSettled(Array.from({ length: 25 }, () => transfer(payer, payee, '10')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    for (const result of results.filter((r) => r.status === 'rejected')) {
      expect(((result as PromiseRejectedResult).reason as ApiError).type).toBe('InsufficientFundsException');
    }
    expect(await balance(payer)).toEqual({ total: '0', available: '0' });
    expect(await balance(payee)).toEqual({ total: '100', available: '100' });
    await expectHealthy();
  });

  it('in opposite directions do not deadlock', async () => {
    const a = newOwner();
    const b = newOwner();
    await fund(a, '50');
    await fund(b, '50');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? transfer(a, b, '1') : transfer(b, a, '1'))),
    );
    expect(await balance(a)).toEqual({ total: '50', available: '50' });
    await expectHealthy();
  });
});

describe('system owner balances in stripes (migration 014)', () => {
  it('are spread over rows by connection and read as their exact sum', async () => {
    const currency = 'EUR';
    const payees = Array.from({ length: 40 }, () => newOwner());
    // 40 concurrent credits from external:bank on a 25-connection pool: several backends, several stripes.
    await Promise.all(payees.map((payee, i) => fund(payee, `1.0${i % 10}`, currency)));
    const { rows } = await database.db.query<{ stripes: number }>(
      `SELECT count(*)::int AS stripes FROM ledger_balances WHERE owner = 'external:bank' AND currency = $1`,
      [currency],
    );
    expect(rows[0]!.stripes).toBeGreaterThan(1);
    const expected = payees.reduce((sum, _, i) => sum.plus(`1.0${i % 10}`), m(0)).negated();
    const { totalBalances, availableBalances } = await balancesOf(database.db, 'external:bank');
    expect(totalBalances[currency]?.toFixed()).toBe(expected.toFixed());
    expect(availableBalances[currency]?.toFixed()).toBe(expected.toFixed());
    await expectHealthy();
  });

  it('never split a customer balance: a second row for one is refused by the database', async () => {
    const owner = newOwner();
    await fund(owner, '5');
    const error = await database.db
      .query(`INSERT INTO ledger_balances (owner, currency, stripe) VALUES ($1, 'USD', 1)`, [owner])
      .catch((caught: unknown) => caught as { code?: string; constraint?: string });
    expect(error).toMatchObject({ code: '23514', constraint: 'ledger_customer_balance_one_row' });
    expect(await balance(owner)).toEqual({ total: '5', available: '5' });
  });
});

describe('holds', () => {
  const hold = (owner: string, amount: string, expiresAtMs = Date.now() + 60_000) =>
    withTransaction(database.db, (tx) =>
      placeHold(tx, { owner, currency: 'USD', amount: m(amount), expiresAtMs }),
    );

  it('reserve available funds, then post exactly once', async () => {
    const owner = newOwner();
    const merchant = newOwner();
    await fund(owner, '30');
    const holdId = await hold(owner, '12.5');
    expect(await balance(owner)).toEqual({ total: '30', available: '17.5' });
    await withTransaction(database.db, (tx) => postHold(tx, holdId, { to: merchant, kind: 'test.capture' }));
    expect(await balance(owner)).toEqual({ total: '17.5', available: '17.5' });
    expect(await balance(merchant)).toEqual({ total: '12.5', available: '12.5' });
    for (const again of [
      () =>
        withTransaction(database.db, (tx) => postHold(tx, holdId, { to: merchant, kind: 'test.capture' })),
      () => withTransaction(database.db, (tx) => voidHold(tx, holdId)),
    ]) {
      await expect(again()).rejects.toMatchObject({ errorCode: 'ledger.holdNotPending' });
    }
    await expectHealthy();
  });

  it('void back to available exactly once, even when raced', async () => {
    const owner = newOwner();
    await fund(owner, '20');
    const holdId = await hold(owner, '20');
    expect(await balance(owner)).toEqual({ total: '20', available: '0' });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        withTransaction(database.db, async (tx) => {
          if (i % 2) await voidHold(tx, holdId);
          else await postHold(tx, holdId, { to: newOwner(), kind: 'test.capture' });
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await expectHealthy();
  });

  it('cannot reserve more than is available', async () => {
    const owner = newOwner();
    await fund(owner, '5');
    await hold(owner, '3');
    await expect(hold(owner, '2.01')).rejects.toMatchObject({ type: 'InsufficientFundsException' });
    await expect(transfer(owner, newOwner(), '2.01')).rejects.toMatchObject({
      type: 'InsufficientFundsException',
    });
    expect(await balance(owner)).toEqual({ total: '5', available: '2' });
  });

  it('are listed for expiry once past their time', async () => {
    const owner = newOwner();
    await fund(owner, '1');
    const expired = await hold(owner, '1', Date.now() - 1000);
    expect(await holdsDueForExpiry(database.db, Date.now())).toContain(expired);
  });
});

/** Small deterministic PRNG (mulberry32) so a failing sequence can be replayed from its seed. */
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('seeded random operations against a reference model', () => {
  it('keep balances equal to the model and the ledger conserved', async () => {
    const seed = 20261121;
    const random = prng(seed);
    const owners = Array.from({ length: 5 }, newOwner);
    const model = new Map(owners.map((owner) => [owner, { total: m(0), available: m(0) }]));
    const holds: { id: number; owner: string; amount: Money }[] = [];
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
    const amount = () => m(Math.floor(random() * 5000)).div(100); // 0.00 – 49.99

    for (let step = 0; step < 200; step++) {
      const choice = random();
      const owner = pick(owners);
      const state = model.get(owner)!;
      const value = amount();
      if (value.isZero()) continue;
      try {
        if (choice < 0.3) {
          await fund(owner, value.toFixed());
          state.total = state.total.plus(value);
          state.available = state.available.plus(value);
        } else if (choice < 0.6) {
          const to = pick(owners.filter((other) => other !== owner));
          await transfer(owner, to, value.toFixed());
          state.total = state.total.minus(value);
          state.available = state.available.minus(value);
          model.get(to)!.total = model.get(to)!.total.plus(value);
          model.get(to)!.available = model.get(to)!.available.plus(value);
        } else if (choice < 0.8) {
          const id = await withTransaction(database.db, (tx) =>
            placeHold(tx, { owner, currency: 'USD', amount: value, expiresAtMs: Date.now() + 60_000 }),
          );
          holds.push({ id, owner, amount: value });
          state.available = state.available.minus(value);
        } else if (holds.length > 0) {
          const held = holds.splice(Math.floor(random() * holds.length), 1)[0]!;
          const heldState = model.get(held.owner)!;
          if (choice < 0.9) {
            await withTransaction(database.db, (tx) => voidHold(tx, held.id));
            heldState.available = heldState.available.plus(held.amount);
          } else {
            const to = pick(owners);
            await withTransaction(database.db, (tx) => postHold(tx, held.id, { to, kind: 'test.capture' }));
            heldState.total = heldState.total.minus(held.amount);
            model.get(to)!.total = model.get(to)!.total.plus(held.amount);
            model.get(to)!.available = model.get(to)!.available.plus(held.amount);
          }
        }
      } catch (error) {
        // The only acceptable refusal: the model agrees there was not enough.
        expect((error as ApiError).type, `step ${step} (seed ${seed})`).toBe('InsufficientFundsException');
        expect(state.available.lt(value), `step ${step} (seed ${seed})`).toBe(true);
      }
    }
    for (const [owner, expected] of model) {
      expect(await balance(owner), owner).toEqual({
        total: expected.total.toFixed(),
        available: expected.available.toFixed(),
      });
    }
    await expectHealthy();
  });
});

describe('holds placed and settled together (migrations 019, 020, 021)', () => {
  const settleArgs = (holdIds: number[], entries: NewEntry[]) => {
    const e = combinedEntries(entries.map(entryArguments));
    return [holdIds, e.kinds, e.references, e.memos, e.postingEntries, e.owners, e.currencies, e.amounts];
  };
  const settleSql =
    'SELECT ledger_settle_holds($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::numeric[]) AS ids';
  const usd = async (owner: string) => {
    const { totalBalances, availableBalances } = await balancesOf(database.db, owner);
    return { total: Number(totalBalances.USD), available: Number(availableBalances.USD) };
  };
  const capture = (holder: string, to: string, amount: string): NewEntry => ({
    kind: 'test.capture',
    postings: [
      { owner: holder, currency: 'USD', amount: m(amount).negated() },
      { owner: to, currency: 'USD', amount: m(amount) },
    ],
  });

  it('places holds with one balance move each owner, settles them with one entry each, and only once', async () => {
    const holder = newOwner();
    const payee = newOwner();
    await fund(holder, '100');
    const { rows } = await database.db.query<{ ids: string[] }>(
      `SELECT ledger_place_holds($1::text[], $2::text[], $3::numeric[], $4::timestamptz[], $5::text[]) AS ids`,
      [
        [holder, holder],
        ['USD', 'USD'],
        ['30', '20'],
        [new Date(Date.now() + 60_000), new Date(Date.now() + 60_000)],
        ['a', 'b'],
      ],
    );
    const holdIds = rows[0]!.ids.map(Number);
    expect(await usd(holder)).toEqual({ total: 100, available: 50 });

    const entries = [capture(holder, payee, '30'), capture(holder, payee, '20')];
    const settled = await database.db.query<{ ids: string[] }>(settleSql, settleArgs(holdIds, entries));
    expect(settled.rows[0]!.ids).toHaveLength(2);
    expect(await usd(holder)).toEqual({ total: 50, available: 50 });
    expect(await usd(payee)).toEqual({ total: 50, available: 50 });
    // Settled holds are no longer pending: a second settlement is refused whole.
    await expect(database.db.query(settleSql, settleArgs(holdIds, entries))).rejects.toMatchObject({
      code: 'RL001',
    });
    expect(await auditLedger(database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('refuses holds of different currencies settled together, and ragged hold arguments', async () => {
    const holder = newOwner();
    await fund(holder, '100');
    await fund(holder, '100', 'EUR');
    const place = (currency: string) =>
      withTransaction(database.db, (tx) =>
        placeHold(tx, { owner: holder, currency, amount: m(10), expiresAtMs: Date.now() + 60_000 }),
      );
    const holdIds = [await place('USD'), await place('EUR')];
    const payee = newOwner();
    const eurCapture: NewEntry = {
      kind: 'test.capture',
      postings: [
        { owner: holder, currency: 'EUR', amount: m(-10) },
        { owner: payee, currency: 'EUR', amount: m(10) },
      ],
    };
    const before = await snapshotTables(database.db);
    await expect(
      database.db.query(settleSql, settleArgs(holdIds, [capture(holder, payee, '10'), eurCapture])),
    ).rejects.toThrow(/share one owner and currency/);
    await expect(
      database.db.query(
        'SELECT ledger_place_holds($1::text[], $2::text[], $3::numeric[], $4::timestamptz[], $5::text[])',
        [[holder, holder], ['USD'], ['1', '2'], [new Date(), new Date()], [null, null]],
      ),
    ).rejects.toThrow(/owner, currency, amount, expiry and reference each/);
    expect(await snapshotTables(database.db)).toEqual(before);
  });

  it("posts the entries after the holds' own as they are, in the same call; fewer entries than holds are refused (migration 066)", async () => {
    const holder = newOwner();
    const payee = newOwner();
    const other = newOwner();
    await fund(holder, '100');
    await fund(other, '10');
    const place = (amount: number) =>
      withTransaction(database.db, (tx) =>
        placeHold(tx, {
          owner: holder,
          currency: 'USD',
          amount: m(amount),
          expiresAtMs: Date.now() + 60_000,
        }),
      );
    const holdIds = [await place(30), await place(20)];
    const before = await snapshotTables(database.db);
    await expect(
      database.db.query(settleSql, settleArgs(holdIds, [capture(holder, payee, '30')])),
    ).rejects.toThrow(/an entry for each hold/);
    expect(await snapshotTables(database.db)).toEqual(before);

    // Two settling entries, then a plain one between two other owners.
    const plain = capture(other, payee, '4');
    const settled = await database.db.query<{ ids: string[] }>(
      settleSql,
      settleArgs(holdIds, [capture(holder, payee, '30'), capture(holder, payee, '20'), plain]),
    );
    expect(settled.rows[0]!.ids).toHaveLength(3);
    expect(await usd(holder)).toEqual({ total: 50, available: 50 });
    expect(await usd(payee)).toEqual({ total: 54, available: 54 });
    expect(await usd(other)).toEqual({ total: 6, available: 6 });
    const holds = await database.db.query<{ state: string }>(
      'SELECT state FROM ledger_holds WHERE id = ANY($1::bigint[]) ORDER BY id',
      [holdIds],
    );
    expect(holds.rows).toEqual([{ state: 'posted' }, { state: 'posted' }]);
    expect(await auditLedger(database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('refuses entries that do not take exactly their hold, changing nothing', async () => {
    const holder = newOwner();
    await fund(holder, '100');
    const holdId = await withTransaction(database.db, (tx) =>
      placeHold(tx, { owner: holder, currency: 'USD', amount: m(40), expiresAtMs: Date.now() + 60_000 }),
    );
    const before = await snapshotTables(database.db);
    await expect(
      database.db.query(settleSql, settleArgs([holdId], [capture(holder, newOwner(), '39.99')])),
    ).rejects.toThrow(/do not take exactly their hold/);
    expect(await snapshotTables(database.db)).toEqual(before);
  });

  it('checks every entry against its own hold: swapped amounts, or an entry taking nothing from the holder, are refused', async () => {
    const holder = newOwner();
    await fund(holder, '100');
    const place = (amount: number) =>
      withTransaction(database.db, (tx) =>
        placeHold(tx, {
          owner: holder,
          currency: 'USD',
          amount: m(amount),
          expiresAtMs: Date.now() + 60_000,
        }),
      );
    const holdIds = [await place(30), await place(20)];
    const payee = newOwner();
    const elsewhere = newOwner();
    await fund(elsewhere, '20');
    const before = await snapshotTables(database.db);
    // The sums match (50), the entries do not: the first takes 20 for its hold of 30.
    await expect(
      database.db.query(
        settleSql,
        settleArgs(holdIds, [capture(holder, payee, '20'), capture(holder, payee, '30')]),
      ),
    ).rejects.toThrow(/2 entries do not take exactly their hold/);
    // The second takes its 20 from another owner.
    await expect(
      database.db.query(
        settleSql,
        settleArgs(holdIds, [capture(holder, payee, '30'), capture(elsewhere, payee, '20')]),
      ),
    ).rejects.toThrow(/1 entries do not take exactly their hold/);
    expect(await snapshotTables(database.db)).toEqual(before);
    const settled = await database.db.query<{ ids: string[] }>(
      settleSql,
      settleArgs(holdIds, [capture(holder, payee, '30'), capture(holder, payee, '20')]),
    );
    expect(settled.rows[0]!.ids).toHaveLength(2);
    expect(await auditLedger(database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });
});
