import { expect } from 'vitest';
import { auditLedger } from '../../src/ledger/service.ts';
import type { Db } from '../../src/platform/db/pool.ts';
import { acknowledged, idOf, type Op } from './load.ts';
import { eventually, type Receiver, START_BALANCE, type Tenant } from './support.ts';

/**
 * The fault tests' definition of "nothing acknowledged lost, nothing done twice", checked against
 * the database once every op has a final answer (see retryUnanswered).
 */

const sorted = (values: Iterable<string>) => [...values].sort();

async function column(db: Db, sql: string, params: unknown[]): Promise<string[]> {
  const { rows } = await db.query<{ value: string }>(sql, params);
  return rows.map((row) => row.value);
}

/** Each key's effect exists exactly once, and nothing exists that no answer acknowledged. */
export async function expectEffectsExactlyOnce(db: Db, tenant: Tenant, ops: Op[]): Promise<void> {
  const partner = tenant.partner.accountId;
  const created = [...acknowledged(ops, 'transfer'), ...acknowledged(ops, 'unconfirmed')].map(idOf);
  // Distinct keys never share an effect: one id per acknowledged key.
  expect(new Set(created).size).toBe(created.length);
  // Card orders' delivery transfers (source walletorderholding:WO_…) are checked with the orders below.
  const stored = await column(
    db,
    `SELECT id AS value FROM transfers WHERE partner_id = $1 AND source NOT LIKE 'walletorderholding:%'`,
    [partner],
  );
  expect(sorted(stored)).toEqual(sorted(created));

  // Every autoConfirm and every confirmed transfer settled, with exactly one settlement entry.
  const { rows } = await db.query<{ id: string; status: string; entries: number }>(
    `SELECT t.id, t.status, (SELECT count(*) FROM ledger_entries e
       WHERE e.kind = 'transfer' AND e.reference = 'transfer:' || t.id)::int AS entries
     FROM transfers t WHERE t.partner_id = $1 AND t.source NOT LIKE 'walletorderholding:%'`,
    [partner],
  );
  const wrong = rows.filter((row) => row.status !== 'COMPLETED' || row.entries !== 1);
  expect(wrong).toEqual([]);

  const reserved = acknowledged(ops, 'reserve').map(idOf);
  const reservations = await column(db, 'SELECT id AS value FROM reservations WHERE partner_id = $1', [
    partner,
  ]);
  expect(sorted(reservations)).toEqual(sorted(reserved));

  const ordered = acknowledged(ops, 'order').map(idOf);
  expect(new Set(ordered).size).toBe(ordered.length);
  const orders = await column(db, 'SELECT id AS value FROM wallet_orders WHERE partner_id = $1', [partner]);
  expect(sorted(orders)).toEqual(sorted(ordered));
  // Each order's transferId names its own delivery transfer, exactly one, in the order's state.
  const deliveries = await db.query<{ order_id: string; transfers: number; status: string | null }>(
    `SELECT o.id AS order_id,
       (SELECT count(*) FROM transfers t WHERE t.source = 'walletorderholding:' || o.id)::int AS transfers,
       (SELECT t.status FROM transfers t WHERE t.id = o.transfer_id AND t.source = 'walletorderholding:' || o.id) AS status
     FROM wallet_orders o WHERE o.partner_id = $1`,
    [partner],
  );
  const undelivered = deliveries.rows.filter((row) => row.transfers !== 1 || row.status !== 'COMPLETED');
  expect(undelivered).toEqual([]);
  // A reservation buys at most one order, and exactly the reservations with an order are used.
  const used = await column(
    db,
    `SELECT r.id AS value FROM reservations r JOIN reservation_uses u ON u.reservation_id = r.id
     WHERE r.partner_id = $1`,
    [partner],
  );
  const ordersReservations = await column(
    db,
    'SELECT reservation_id AS value FROM wallet_orders WHERE partner_id = $1',
    [partner],
  );
  expect(sorted(used)).toEqual(sorted(ordersReservations));
}

/** Conservation, recomputed balances, no negative customer balance, users' money intact. */
export async function expectLedgerClean(db: Db, tenant: Tenant): Promise<void> {
  expect(await auditLedger(db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  const negative = await db.query(
    `SELECT owner, currency FROM ledger_balances
     WHERE NOT ledger_is_system_owner(owner) AND (total < 0 OR available < 0 OR available > total)`,
  );
  expect(negative.rows).toEqual([]);
  // Each posted hold names the entry that settled it, an entry for the same thing (no foreign key
  // says so since migration 026: ledger_settle_hold(s) set it).
  const orphaned = await db.query(
    `SELECT h.id FROM ledger_holds h LEFT JOIN ledger_entries e ON e.id = h.entry_id
     WHERE h.state = 'posted' AND e.reference IS DISTINCT FROM h.reference`,
  );
  expect(orphaned.rows).toEqual([]);
  // Transfers only move USD between these users (and any fee to house:fees): none created or destroyed.
  const { rows } = await db.query<{ users: string; fees: string }>(
    `SELECT
       (SELECT coalesce(sum(total), 0) FROM ledger_balances
         WHERE currency = 'USD' AND owner = ANY($1))::text AS users,
       (SELECT coalesce(sum(p.amount), 0) FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
         WHERE e.kind = 'transfer' AND p.owner = 'house:fees' AND p.currency = 'USD')::text AS fees`,
    [tenant.users.map((user) => `user:${user}`)],
  );
  const { users, fees } = rows[0]!;
  expect(Number(users) + Number(fees)).toBeCloseTo(tenant.users.length * START_BALANCE, 8);
}

/** No background job gave up: work a dead process held was finished by someone. */
export async function expectNoFailedJobs(db: Db): Promise<void> {
  const { rows } = await db.query(`SELECT kind, last_error FROM jobs WHERE state = 'failed'`);
  expect(rows).toEqual([]);
}

/** Every acknowledged card order reaches COMPLETE (capture and delivery ran, whoever ran them). */
export async function expectOrdersFinish(db: Db, tenant: Tenant, ms = 30_000): Promise<void> {
  const unfinished = async () =>
    (
      await db.query<{ id: string; status: string }>(
        `SELECT id, status FROM wallet_orders WHERE partner_id = $1 AND status <> 'COMPLETE'`,
        [tenant.partner.accountId],
      )
    ).rows;
  await eventually(async () => (await unfinished()).length === 0, ms);
  expect(await unfinished()).toEqual([]);
}

/**
 * Every acknowledged transfer's callback arrives at least once. Answers how many arrived more
 * than once (allowed: at-least-once, counted for the report).
 */
export async function expectCallbacksDelivered(receiver: Receiver, ops: Op[], ms = 30_000): Promise<number> {
  const ids = [...acknowledged(ops, 'transfer'), ...acknowledged(ops, 'unconfirmed')].map(idOf);
  const missing = () => ids.filter((id) => !receiver.counts.has(`transfer:${id}`));
  await eventually(() => missing().length === 0, ms);
  expect(missing()).toEqual([]);
  return ids.filter((id) => (receiver.counts.get(`transfer:${id}`) ?? 0) > 1).length;
}

/** All of the above, in the order that waits least. */
export async function expectNothingLost(db: Db, tenant: Tenant, ops: Op[], receiver: Receiver) {
  await expectOrdersFinish(db, tenant);
  const duplicateCallbacks = await expectCallbacksDelivered(receiver, ops);
  await expectEffectsExactlyOnce(db, tenant, ops);
  await expectLedgerClean(db, tenant);
  await expectNoFailedJobs(db);
  return { duplicateCallbacks };
}
