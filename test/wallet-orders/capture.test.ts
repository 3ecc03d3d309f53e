import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FAILING_ADDRESSES, settleSandboxSends } from '../../src/chains/sandbox-chain.ts';
import { auditLedger } from '../../src/ledger/service.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { JobRunner } from '../../src/platform/jobs/runner.ts';
import {
  CAPTURE_MARGIN_MS,
  CAPTURE_SWEEP_JOB,
  captureAgingOrders,
} from '../../src/wallet-orders/capture-sweep.ts';
import { onOrderDeliveries } from '../../src/wallet-orders/transitions.ts';
import { registerCaptureSweep } from '../../src/wallet-orders/worker.ts';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import {
  CARDS,
  cardHoldState,
  createOrder,
  lockedReservation,
  nonZeroBalances,
  orderBody,
  processingWorkerFor,
  readOrder,
  sandboxAuthorizationState,
  startCardOrderApp,
  testCard,
  workerFor,
} from './support.ts';

/**
 * The card is captured when the order's crypto is delivered, or before its authorization ends
 * when the delivery waits (docs/contract.md, decisions 110 to 112): a failure before the capture
 * voids the authorization, one after it refunds the card.
 */

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp());
});
afterAll(async () => t.close());
afterEach(() => t.ctx.clock.setOffsetMs(0));

const FAILING_DEST = `ethereum:${SANDBOX_FAILING_ADDRESSES.ethereum}`;

/** A cleared order taken to PROCESSING by the worker, its chain send left queued. */
async function processingOrder(extra: Record<string, unknown> = {}): Promise<string> {
  const reserveExtra = 'dest' in extra ? { dest: extra.dest } : {};
  const { reservation, amount } = await lockedReservation(t, partner, reserveExtra);
  const created = await createOrder(t, partner, orderBody(partner, reservation, amount, extra));
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = String(created.body.id);
  await processingWorkerFor(t).drain();
  expect((await readOrder(t, partner, id)).status).toBe('PROCESSING');
  return id;
}

/** The order's ledger entries, in booking order, each with the transaction that booked it. */
async function entriesOf(orderId: string) {
  const { rows } = await t.database.db.query<{ kind: string; tx: string }>(
    'SELECT kind, xmin::text AS tx FROM ledger_entries WHERE reference = $1 ORDER BY id',
    [`order:${orderId}`],
  );
  return rows;
}

async function capturedAt(orderId: string): Promise<Date | null> {
  const { rows } = await t.database.db.query<{ captured_at: Date | null }>(
    'SELECT captured_at FROM wallet_orders WHERE id = $1',
    [orderId],
  );
  return rows[0]!.captured_at;
}

/** Moves the service clock to where an authorization of now is due for the sweep, plus a minute. */
function ageAuthorizations(): void {
  const due = t.ctx.cardProcessor.authorizationLifetimeMs - CAPTURE_MARGIN_MS + 60_000;
  t.ctx.clock.setOffsetMs(due);
}

const expectHealthyLedger = async () =>
  expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });

describe('capture at delivery', () => {
  it('holds the authorization through PROCESSING and captures with the delivery, in one transaction', async () => {
    const id = await processingOrder();
    expect(await sandboxAuthorizationState(t, id)).toBe('AUTHORIZED');
    expect(await cardHoldState(t, id)).toBe('pending');
    expect(await capturedAt(id)).toBeNull();
    expect(await entriesOf(id)).toEqual([]);

    await workerFor(t).drain();
    expect((await readOrder(t, partner, id)).status).toBe('COMPLETE');
    expect(await sandboxAuthorizationState(t, id)).toBe('CAPTURED');
    expect(await cardHoldState(t, id)).toBe('posted');
    expect(await capturedAt(id)).toBeInstanceOf(Date);
    const entries = await entriesOf(id);
    expect(entries.map((entry) => entry.kind)).toEqual(['order.capture', 'order.delivery']);
    expect(entries[0]!.tx).toBe(entries[1]!.tx);
    await expectHealthyLedger();
  });

  it('captures a custody order with its credit, in its one transaction', async () => {
    const dest = `account:${partner.accountId}`;
    const { reservation, amount } = await lockedReservation(t, partner, { dest });
    const created = await createOrder(t, partner, orderBody(partner, reservation, amount, { dest }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = String(created.body.id);
    await processingWorkerFor(t).drain();
    expect((await readOrder(t, partner, id)).status).toBe('COMPLETE');
    expect(await sandboxAuthorizationState(t, id)).toBe('CAPTURED');
    expect(await cardHoldState(t, id)).toBe('posted');
    expect(await capturedAt(id)).toBeInstanceOf(Date);
    const entries = await entriesOf(id);
    expect(entries.map((entry) => entry.kind).sort()).toEqual(['order.capture', 'order.delivery']);
    expect(entries[0]!.tx).toBe(entries[1]!.tx);
    await expectHealthyLedger();
  });

  it('rolls a failed settlement back whole, capture included, and a repeated report captures once', async () => {
    const id = await processingOrder();
    // The settling transaction fails after the capture call, at the status change (a crash there).
    await t.database.db.query(`
      CREATE FUNCTION refuse_completion() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'crash before COMMIT (test rule)'; END $$;
      CREATE TRIGGER refuse_completion BEFORE UPDATE ON wallet_orders FOR EACH ROW
        WHEN (NEW.status = 'COMPLETE') EXECUTE FUNCTION refuse_completion();`);
    try {
      await expect(settleSandboxSends(t.ctx, [`order:${id}`])).rejects.toThrow(/crash before COMMIT/);
    } finally {
      await t.database.db.query(
        'DROP TRIGGER refuse_completion ON wallet_orders; DROP FUNCTION refuse_completion();',
      );
    }
    expect((await readOrder(t, partner, id)).status).toBe('PROCESSING');
    expect(await sandboxAuthorizationState(t, id)).toBe('AUTHORIZED');
    expect(await cardHoldState(t, id)).toBe('pending');
    expect(await entriesOf(id)).toEqual([]);

    // The report comes again (the settle job's retry): captured once, delivered once.
    await settleSandboxSends(t.ctx, [`order:${id}`]);
    expect((await readOrder(t, partner, id)).status).toBe('COMPLETE');
    expect(await sandboxAuthorizationState(t, id)).toBe('CAPTURED');
    // And once more, as a chain backend repeating its report would: nothing changes.
    const before = await nonZeroBalances(t);
    await withTransaction(t.ctx.db, (tx) =>
      onOrderDeliveries(t.ctx, tx, [{ reference: `order:${id}`, status: 'CONFIRMED' }]),
    );
    expect((await entriesOf(id)).map((entry) => entry.kind)).toEqual(['order.capture', 'order.delivery']);
    expect(await nonZeroBalances(t)).toEqual(before);
    await expectHealthyLedger();
  });
});

describe('capture before the authorization ends', () => {
  it('captures undelivered orders past the lifetime less the margin, once, and their delivery books only itself', async () => {
    const id = await processingOrder();
    // Young authorizations are left alone.
    expect(await captureAgingOrders(t.ctx)).toBe(0);
    expect(await sandboxAuthorizationState(t, id)).toBe('AUTHORIZED');

    ageAuthorizations();
    expect(await captureAgingOrders(t.ctx)).toBe(1);
    expect((await readOrder(t, partner, id)).status).toBe('PROCESSING');
    expect(await sandboxAuthorizationState(t, id)).toBe('CAPTURED');
    expect(await cardHoldState(t, id)).toBe('posted');
    expect(await capturedAt(id)).toEqual(expect.any(Date));
    expect((await entriesOf(id)).map((entry) => entry.kind)).toEqual(['order.capture']);
    // A second sweep finds nothing left to capture.
    expect(await captureAgingOrders(t.ctx)).toBe(0);

    await workerFor(t).drain();
    expect((await readOrder(t, partner, id)).status).toBe('COMPLETE');
    const entries = await entriesOf(id);
    expect(entries.map((entry) => entry.kind)).toEqual(['order.capture', 'order.delivery']);
    expect(entries[0]!.tx).not.toBe(entries[1]!.tx);
    expect(await sandboxAuthorizationState(t, id)).toBe('CAPTURED');
    await expectHealthyLedger();
  });

  it('leaves orders not PROCESSING alone: an authorization step still pending is not captured', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    const created = await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { debitCard: testCard(CARDS.codes) }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = String(created.body.id);
    ageAuthorizations();
    expect(await captureAgingOrders(t.ctx)).toBe(0);
    expect(await sandboxAuthorizationState(t, id)).toBe('AUTHORIZED');
    expect(await cardHoldState(t, id)).toBe('pending');
  });

  it('refunds an order the sweep captured when its delivery then fails', async () => {
    const before = await nonZeroBalances(t);
    const id = await processingOrder({ dest: FAILING_DEST });
    ageAuthorizations();
    expect(await captureAgingOrders(t.ctx)).toBe(1);
    await workerFor(t).drain();
    const failed = await readOrder(t, partner, id);
    expect(failed).toMatchObject({ status: 'FAILED', errorCode: 'transfer.deliveryFailed' });
    expect(String(failed.errorMessage)).toMatch(/the card was refunded\.$/);
    expect(await sandboxAuthorizationState(t, id)).toBe('REFUNDED');
    expect((await entriesOf(id)).map((entry) => entry.kind)).toEqual(['order.capture', 'order.refund']);
    // The capture reversed: every balance back where it was before this order.
    expect(await nonZeroBalances(t)).toEqual(before);
    await expectHealthyLedger();
  });

  it('runs as one periodic job for all the orders due', async () => {
    const ids = [await processingOrder(), await processingOrder()];
    const runner = new JobRunner(t.ctx.db, pino({ level: 'silent' }), 50);
    await registerCaptureSweep(runner, t.ctx);
    ageAuthorizations();
    await runner.drain();
    for (const id of ids) expect(await sandboxAuthorizationState(t, id), id).toBe('CAPTURED');
    // The run queued the next one, the only sweep job waiting.
    const { rows } = await t.database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE kind = $1 AND state = 'pending'`,
      [CAPTURE_SWEEP_JOB],
    );
    expect(rows[0]!.n).toBe(1);
    await workerFor(t).drain();
    for (const id of ids) expect((await readOrder(t, partner, id)).status, id).toBe('COMPLETE');
    await expectHealthyLedger();
  });
});
