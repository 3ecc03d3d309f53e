import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller, Scope } from '../../src/identity/types.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { createTransfer } from '../../src/transfers/service.ts';
import { prepareTransfer } from '../../src/transfers/transfer-request.ts';
import type { TransferView } from '../../src/transfers/view.ts';
import { snapshotTables } from '../helpers/db.ts';
import {
  approvedUser,
  asUser,
  balances,
  credit,
  expectLedgerSound,
  operator,
  startTransfersApp,
  type TransfersFixture,
} from './support.ts';

/**
 * Book transfers with autoConfirm created at the same moment, without an Idempotency-Key, are
 * written together (createSettledTransfers in transfers/service.ts). Called here through the service, all in one
 * turn of the event loop, so that they are one group for certain.
 */
let f: TransfersFixture;
beforeAll(async () => {
  f = await startTransfersApp();
});
afterAll(async () => f.t.close());

function userScope(userId: string): Scope {
  const partnerId = f.partner.accountId;
  return { partnerId, accountId: partnerId, userId, caller: {} as Caller, masqueraded: true };
}

/** Each transfer prepared first (quotes are async), then all created in the same turn. */
async function createAtOnce(transfers: { from: string; body: Record<string, unknown> }[]) {
  const prepared = await Promise.all(
    transfers.map(({ from, body }) =>
      prepareTransfer(f.t.ctx, userScope(from), {
        sourceCurrency: 'USD',
        autoConfirm: true,
        ...body,
      } as never),
    ),
  );
  return Promise.allSettled(
    prepared.map((p, i) => createTransfer(f.t.ctx, userScope(transfers[i]!.from), p)),
  );
}

async function transactionsOf(ids: string[]) {
  const { rows } = await f.t.database.db.query<{ n: number }>(
    'SELECT count(DISTINCT xmin::text)::int AS n FROM transfers WHERE id = ANY($1)',
    [ids],
  );
  return rows[0]!.n;
}

/** One after the other: identical signed requests in the same millisecond would be replays. */
async function users(count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await approvedUser(f.t, f.partner));
  return ids;
}

const created = (outcome: PromiseSettledResult<TransferView>) =>
  outcome.status === 'fulfilled' ? outcome.value : undefined;
const refusal = (outcome: PromiseSettledResult<TransferView>) =>
  outcome.status === 'rejected' ? (outcome.reason as ApiError).errorCode : undefined;

describe('transfers created at the same moment', () => {
  it('are written by one statement: rows, entries and callbacks in one transaction', async () => {
    const { t, partner } = f;
    const payers = await users(8);
    const payee = await approvedUser(t, partner);
    for (const payer of payers) await credit(t, `user:${payer}`, 'USD', '10');
    // A subscription to the payee: every one of the transfers queues its callback.
    const subscribed = await asUser(t, partner, payee, 'POST', '/v3/subscriptions', {
      subscribeTo: `user:${payee}`,
      notifyTarget: 'http://127.0.0.1:9/hooks',
    });
    expect(subscribed.status, await subscribed.clone().text()).toBe(200);

    const outcomes = await createAtOnce(
      payers.map((from, i) => ({ from, body: { sourceAmount: `${i + 1}.25`, dest: `user:${payee}` } })),
    );
    const views = outcomes.map(created);
    expect(views.every((view) => view?.status === 'COMPLETED')).toBe(true);
    const ids = views.map((view) => view!.id);
    expect(await transactionsOf(ids)).toBe(1);

    const { rows: entries } = await t.database.db.query(
      `SELECT e.reference, array_agg(p.owner || ' ' || p.amount::text ORDER BY p.amount) AS postings
       FROM ledger_entries e JOIN ledger_postings p ON p.entry_id = e.id
       WHERE e.reference = ANY($1) GROUP BY e.reference`,
      [ids.map((id) => `transfer:${id}`)],
    );
    expect(entries).toHaveLength(8);
    for (const [i, payer] of payers.entries()) {
      const entry = entries.find((e) => e.reference === `transfer:${ids[i]}`);
      expect(entry.postings).toEqual([`user:${payer} -${i + 1}.25`, `user:${payee} ${i + 1}.25`]);
      expect((await balances(t, `user:${payer}`)).total).toEqual({ USD: `${10 - i - 1 - 0.25}` });
    }
    expect((await balances(t, `user:${payee}`)).total).toEqual({ USD: '38' });
    const { rows: deliveries } = await t.database.db.query(
      'SELECT trigger, body FROM callback_deliveries WHERE trigger = ANY($1)',
      [ids.map((id) => `transfer:${id}`)],
    );
    expect(deliveries).toHaveLength(8);
    for (const delivery of deliveries) {
      expect(JSON.parse(delivery.body)).toEqual({
        subscriptionId: expect.any(String),
        trigger: delivery.trigger,
      });
    }
    await expectLedgerSound(t);
  });

  it('are refused one by one: an overdraft, a taken customId or a closed scope fails only its own', async () => {
    const { t, partner } = f;
    const rich = await users(4);
    const poor = await approvedUser(t, partner);
    const closed = await approvedUser(t, partner);
    const payee = await approvedUser(t, partner);
    for (const payer of [...rich, poor, closed]) await credit(t, `user:${payer}`, 'USD', '5');
    const closing = await operator(t, 'POST', `/operator/v1/users/${closed}/scopes/TRANSFER/review`, {
      decision: 'CLOSE',
    });
    expect(closing.status, await closing.clone().text()).toBe(200);

    const outcomes = await createAtOnce([
      { from: rich[0]!, body: { sourceAmount: '1', dest: `user:${payee}`, customId: 'same-id' } },
      { from: rich[1]!, body: { sourceAmount: '1', dest: `user:${payee}`, customId: 'same-id' } },
      { from: poor, body: { sourceAmount: '5.01', dest: `user:${payee}` } },
      { from: rich[2]!, body: { sourceAmount: '2', dest: `user:${payee}` } },
      { from: closed, body: { sourceAmount: '1', dest: `user:${payee}` } },
      { from: rich[3]!, body: { sourceAmount: '3', dest: `user:${payee}` } },
    ]);
    // Exactly one of the two with the same customId.
    expect([refusal(outcomes[0]!), refusal(outcomes[1]!)].sort()).toEqual([
      'validation.duplicateCustomId',
      undefined,
    ]);
    expect(refusal(outcomes[2]!)).toBe('insufficientFunds');
    expect(outcomes[3]!.status).toBe('fulfilled');
    expect(refusal(outcomes[4]!)).toBe('accessDenied.userClosed');
    expect(outcomes[5]!.status).toBe('fulfilled');
    expect((await balances(t, `user:${poor}`)).total).toEqual({ USD: '5' });
    expect((await balances(t, `user:${payee}`)).total).toEqual({ USD: '6' });
    const written = outcomes.map(created).filter((view) => view !== undefined);
    const { rows } = await t.database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM transfers WHERE dest = $1`,
      [`user:${payee}`],
    );
    expect(rows[0]!.n).toBe(written.length);
    await expectLedgerSound(t);
  });

  it('count one after the other: payments that only cancel out are refused', async () => {
    const { t } = f;
    const [a, b] = await users(2);
    const before = await snapshotTables(t.database.db);
    // Netted, the two cancel out; in either order, the first overdraws its payer.
    const outcomes = await createAtOnce([
      { from: a!, body: { sourceAmount: '5', dest: `user:${b}` } },
      { from: b!, body: { sourceAmount: '5', dest: `user:${a}` } },
    ]);
    expect(outcomes.map(refusal)).toEqual(['insufficientFunds', 'insufficientFunds']);
    expect(await snapshotTables(t.database.db)).toEqual(before);
  });

  it('leave nothing behind when all of them are refused', async () => {
    const { t, partner } = f;
    const payer = await approvedUser(t, partner);
    const payee = await approvedUser(t, partner);
    await credit(t, `user:${payer}`, 'USD', '1');
    const before = await snapshotTables(t.database.db);
    const outcomes = await createAtOnce([
      { from: payer, body: { sourceAmount: '2', dest: `user:${payee}` } },
      { from: payer, body: { sourceAmount: '3', dest: `user:${payee}` } },
    ]);
    expect(outcomes.map(refusal)).toEqual(['insufficientFunds', 'insufficientFunds']);
    for (const outcome of outcomes)
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(ApiError);
    expect(await snapshotTables(t.database.db)).toEqual(before);
  });
});
