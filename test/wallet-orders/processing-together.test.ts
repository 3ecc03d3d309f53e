import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FAILING_ADDRESSES } from '../../src/chains/sandbox-chain.ts';
import { auditLedger } from '../../src/ledger/service.ts';
import { enqueueJob } from '../../src/platform/jobs/queue.ts';
import { processingJob } from '../../src/wallet-orders/jobs.ts';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import {
  CARDS,
  createOrder,
  lockedReservation,
  orderBody,
  readOrder,
  startCardOrderApp,
  testCard,
  workerFor,
} from './support.ts';

/**
 * The worker processes the card orders of one claimed batch together (transitions.ts
 * processOrders, JobRunner.registerGroup): one transaction captures them all, records their
 * delivery transfers, queues their chain sends and books their capture entries; the simulated
 * chain settles a batch's sends together too (settleSandboxSends, onOrderDeliveries). Each order
 * must end exactly as it would alone.
 */

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp());
});
afterAll(async () => t.close());

/** Orders placed one by one (nothing processed yet); answers their ids. */
async function placeOrders(extras: Record<string, unknown>[]): Promise<string[]> {
  const ids: string[] = [];
  for (const extra of extras) {
    const reserveExtra = 'dest' in extra ? { dest: extra.dest } : {};
    const { reservation, amount } = await lockedReservation(t, partner, reserveExtra);
    const created = await createOrder(t, partner, orderBody(partner, reservation, amount, extra));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    ids.push(String(created.body.id));
  }
  return ids;
}

/** How many transactions booked the orders' entries of this kind (entries are never updated). */
async function entryTransactions(kind: string, orderIds: string[]): Promise<number> {
  const { rows } = await t.database.db.query<{ n: number }>(
    `SELECT count(DISTINCT xmin::text)::int AS n FROM ledger_entries
     WHERE kind = $1 AND reference = ANY($2::text[])`,
    [kind, orderIds.map((id) => `order:${id}`)],
  );
  return rows[0]!.n;
}

describe('card orders processed together', () => {
  it('captures a batch in one transaction and each order ends as it would alone', async () => {
    const toChain = await placeOrders([{}, {}, {}, {}]);
    const [custody] = await placeOrders([{ dest: partner.accountId }]);
    const [waiting] = await placeOrders([{ debitCard: testCard(CARDS.codes) }]);
    await workerFor(t).drain();

    for (const id of [...toChain, custody!]) {
      const order = await readOrder(t, partner, id);
      expect(order.status, id).toBe('COMPLETE');
      expect(order.transferId).toEqual(expect.stringMatching(/^TF_/));
    }
    // Still waiting for its codes: no processing job, untouched.
    expect(await readOrder(t, partner, waiting!)).toMatchObject({
      status: 'RUNNING_CHECKS',
      transferId: null,
    });
    // The four chain orders' captures were booked by one transaction, and so were their
    // deliveries once the simulated chain settled their sends together.
    expect(await entryTransactions('order.capture', toChain)).toBe(1);
    expect(await entryTransactions('order.delivery', toChain)).toBe(1);
    const { rows } = await t.database.db.query<{ state: string; n: number }>(
      `SELECT state, count(*)::int AS n FROM sandbox_card_authorizations GROUP BY state ORDER BY state`,
    );
    expect(rows).toEqual([
      { state: 'AUTHORIZED', n: 1 },
      { state: 'CAPTURED', n: 5 },
    ]);
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('settles a batch with a failed delivery and two source currencies: each order as alone', async () => {
    const failing = `ethereum:${SANDBOX_FAILING_ADDRESSES.ethereum}`;
    const paris = {
      street1: '1 Rue de Rivoli',
      city: 'Paris',
      state: 'IDF',
      postalCode: '75001',
      country: 'FR',
    };
    const [usd, refused] = await placeOrders([{}, { dest: failing }]);
    const { reservation, amount } = await lockedReservation(t, partner, {
      sourceCurrency: 'EUR',
      country: 'FR',
    });
    const euro = await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { sourceCurrency: 'EUR', address: paris }),
    );
    expect(euro.status, JSON.stringify(euro.body)).toBe(200);
    await workerFor(t).drain();

    expect(await readOrder(t, partner, usd!)).toMatchObject({ status: 'COMPLETE' });
    expect(await readOrder(t, partner, String(euro.body.id))).toMatchObject({
      status: 'COMPLETE',
      sourceCurrency: 'EUR',
    });
    expect(await readOrder(t, partner, refused!)).toMatchObject({
      status: 'FAILED',
      errorCode: 'transfer.deliveryFailed',
    });
    // All three were captured by one transaction (one settlement statement per currency).
    expect(await entryTransactions('order.capture', [usd!, refused!, String(euro.body.id)])).toBe(1);
    // The failed one was refunded: its capture reversed, its card authorization refunded.
    expect(await entryTransactions('order.refund', [refused!])).toBe(1);
    const { rows } = await t.database.db.query<{ state: string }>(
      'SELECT state FROM sandbox_card_authorizations WHERE order_id = $1',
      [refused],
    );
    expect(rows).toEqual([{ state: 'REFUNDED' }]);
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('processes each order alone when the batch is refused, and every order still completes', async () => {
    // A rule the service does not know: PostgreSQL refuses more than one chain send per statement.
    await t.database.db.query(`
      CREATE FUNCTION refuse_many_sends() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT count(*) FROM added) > 1 THEN RAISE EXCEPTION 'one send per statement (test rule)'; END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER refuse_many_sends AFTER INSERT ON chain_sends REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION refuse_many_sends();`);
    try {
      const ids = await placeOrders([{}, {}, {}]);
      await workerFor(t).drain();
      for (const id of ids) expect((await readOrder(t, partner, id)).status, id).toBe('COMPLETE');
      expect(await entryTransactions('order.capture', ids)).toBe(3);
    } finally {
      await t.database.db.query(
        'DROP TRIGGER refuse_many_sends ON chain_sends; DROP FUNCTION refuse_many_sends();',
      );
    }
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('processes a batch naming more orders than one transaction takes in chunks, each complete', async () => {
    // A chunk of four, so the test places five orders, not the service's chunk and one more.
    const chunk = 4;
    const ids = await placeOrders(Array.from({ length: chunk + 1 }, () => ({})));
    // Two jobs naming them all, as two creation groups' jobs claimed in one batch would (a job
    // alone is processed by its own handler: one group's orders, at most a transaction's worth).
    await t.database.db.query(
      `DELETE FROM jobs WHERE kind = 'walletOrders.process' AND payload->'orderIds' ?| $1::text[]`,
      [ids],
    );
    for (const part of [ids.slice(0, 2), ids.slice(2)]) await enqueueJob(t.database.db, processingJob(part));
    await workerFor(t, chunk).drain();
    for (const id of ids) expect((await readOrder(t, partner, id)).status, id).toBe('COMPLETE');
    // The captures of a transaction share its xmin: a full chunk, then the one left over.
    const { rows } = await t.database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ledger_entries
       WHERE kind = 'order.capture' AND reference = ANY($1::text[]) GROUP BY xmin::text ORDER BY n`,
      [ids.map((id) => `order:${id}`)],
    );
    expect(rows.map((row) => row.n)).toEqual([1, chunk]);
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('still processes a job queued by the release before shared jobs (payload orderId)', async () => {
    const [id] = await placeOrders([{}]);
    // As the previous release queued it: one job per order, its id under `orderId`.
    const { rowCount } = await t.database.db.query(
      `UPDATE jobs SET payload = jsonb_build_object('orderId', $1::text)
       WHERE kind = 'walletOrders.process' AND payload->'orderIds' ? $1`,
      [id],
    );
    expect(rowCount).toBe(1);
    await workerFor(t).drain();
    expect(await readOrder(t, partner, id!)).toMatchObject({ status: 'COMPLETE' });
    expect(await entryTransactions('order.capture', [id!])).toBe(1);
  });
});
