import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FAILING_ADDRESSES } from '../../src/chains/sandbox-chain.ts';
import { auditLedger } from '../../src/ledger/service.ts';
import { enqueueJob } from '../../src/platform/jobs/queue.ts';
import { processingJob } from '../../src/wallet-orders/jobs.ts';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import {
  CARDS,
  cardHoldState,
  createOrder,
  lockedReservation,
  orderBody,
  processingWorkerFor,
  readOrder,
  startCardOrderApp,
  testCard,
  workerFor,
} from './support.ts';

/**
 * The worker processes the card orders of one claimed batch together (transitions.ts
 * processOrders, JobRunner.registerGroup): one transaction records their delivery transfers,
 * queues their chain sends and moves them to PROCESSING, their cards still only authorized; the
 * simulated chain settles a batch's sends together too (settleSandboxSends, onOrderDeliveries),
 * capturing the cards and booking the capture and delivery entries together. Each order must end
 * exactly as it would alone.
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

/** How many of the orders each transaction that last changed them changed, fewest first. */
async function ordersPerLastTransaction(orderIds: string[]): Promise<number[]> {
  const { rows } = await t.database.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM wallet_orders WHERE id = ANY($1::text[]) GROUP BY xmin::text ORDER BY n`,
    [orderIds],
  );
  return rows.map((row) => row.n);
}

/** Whether each order's capture entry was booked by the transaction that booked its delivery. */
async function capturedWithDelivery(orderIds: string[]): Promise<boolean> {
  const { rows } = await t.database.db.query<{ n: number }>(
    `SELECT count(DISTINCT xmin::text)::int AS n FROM ledger_entries
     WHERE kind IN ('order.capture', 'order.delivery') AND reference = ANY($1::text[]) GROUP BY reference`,
    [orderIds.map((id) => `order:${id}`)],
  );
  return rows.length === orderIds.length && rows.every((row) => row.n === 1);
}

describe('card orders processed together', () => {
  it('processes a batch in one transaction, captures it with its deliveries, each order as alone', async () => {
    const toChain = await placeOrders([{}, {}, {}, {}]);
    const [custody] = await placeOrders([{ dest: partner.accountId }]);
    const [waiting] = await placeOrders([{ debitCard: testCard(CARDS.codes) }]);
    // Processed together, their sends queued: nothing captured, every hold still held.
    await processingWorkerFor(t).drain();
    expect(await ordersPerLastTransaction(toChain)).toEqual([toChain.length]);
    for (const id of toChain) expect(await cardHoldState(t, id), id).toBe('pending');
    expect(await entryTransactions('order.capture', toChain)).toBe(0);
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
    // The four chain orders' captures were booked by one transaction with their deliveries,
    // once the simulated chain settled their sends together; every hold is settled.
    expect(await entryTransactions('order.capture', toChain)).toBe(1);
    expect(await capturedWithDelivery(toChain)).toBe(true);
    for (const id of [...toChain, custody!]) expect(await cardHoldState(t, id), id).toBe('posted');
    expect(await cardHoldState(t, waiting!)).toBe('pending');
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
    // The two delivered were captured by one transaction with their deliveries (one settlement
    // statement per currency).
    expect(await entryTransactions('order.capture', [usd!, String(euro.body.id)])).toBe(1);
    expect(await capturedWithDelivery([usd!, String(euro.body.id)])).toBe(true);
    // The failed one was never captured: its authorization voided, its hold released, nothing
    // to refund.
    expect(await entryTransactions('order.capture', [refused!])).toBe(0);
    expect(await entryTransactions('order.refund', [refused!])).toBe(0);
    expect(await cardHoldState(t, refused!)).toBe('voided');
    const { rows } = await t.database.db.query<{ state: string }>(
      'SELECT state FROM sandbox_card_authorizations WHERE order_id = $1',
      [refused],
    );
    expect(rows).toEqual([{ state: 'VOIDED' }]);
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
      await processingWorkerFor(t).drain();
      // Each went to PROCESSING in a transaction of its own.
      expect(await ordersPerLastTransaction(ids)).toEqual([1, 1, 1]);
      await workerFor(t).drain();
      for (const id of ids) expect((await readOrder(t, partner, id)).status, id).toBe('COMPLETE');
      expect(await capturedWithDelivery(ids)).toBe(true);
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
    await processingWorkerFor(t, chunk).drain();
    // The orders a transaction moved to PROCESSING share its xmin: a full chunk, then the one
    // left over.
    expect(await ordersPerLastTransaction(ids)).toEqual([1, chunk]);
    await workerFor(t, chunk).drain();
    for (const id of ids) expect((await readOrder(t, partner, id)).status, id).toBe('COMPLETE');
    expect(await capturedWithDelivery(ids)).toBe(true);
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
    expect(await capturedWithDelivery([id!])).toBe(true);
  });
});
