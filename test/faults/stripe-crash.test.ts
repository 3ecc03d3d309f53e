import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { type HoldingProxy, startHoldingProxy } from '../helpers/holding-proxy.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { freePort } from '../helpers/process.ts';
import {
  STRIPE_TEST_CARDS,
  type StripeEmulator,
  startStripeEmulator,
} from '../helpers/stripe-emulator/index.ts';
import {
  createOrderBearer,
  lockedReservation,
  orderBody,
  roomyPartner,
  testCard,
} from '../wallet-orders/support.ts';
import {
  eventually,
  onCleanup,
  runCleanups,
  type Server,
  SHORT_LEASE_SECONDS,
  serverDatabase,
  sleep,
  startServer,
} from './support.ts';

/**
 * Issue 32 §6 on real processes: `rampart serve` with RAMPART_CARD_PROCESSOR=stripe against the
 * Stripe emulator (test/helpers/stripe-emulator: not Stripe), SIGKILLed at each step of a card
 * order: after Stripe authorized but before Rampart recorded it, while a capture is in flight,
 * and while the delivery is in flight. After a restart on the same database: every order has at
 * most one PaymentIntent, none is left authorized without an order that will capture or void it,
 * and what Stripe captured equals the ledger's capture entries. The emulator's
 * `timeoutAfterProcessing` fault is the timing hook: Stripe does the work and the answer never
 * comes back, so the kill lands exactly between the processor's effect and Rampart's record.
 */
afterAll(runCleanups);

const WEBHOOK_SECRET = 'whsec_crash_tests';
const TIMEOUT_MS = '3000';

interface Harness {
  emulator: StripeEmulator;
  proxy: HoldingProxy;
  db: pg.Pool;
  boot(): Promise<Server>;
}

async function harness(chainDelayMs = '0'): Promise<Harness> {
  const emulator = await startStripeEmulator({ webhookSecret: WEBHOOK_SECRET });
  onCleanup(() => emulator.close());
  const proxy = await startHoldingProxy(emulator.url);
  onCleanup(() => proxy.close());
  const database = await serverDatabase();
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  // The database is dropped at teardown, which ends this pool's idle connections from the server's side.
  db.on('error', () => undefined);
  onCleanup(() => db.end());
  const port = await freePort();
  emulator.webhooks.setUrl(`http://127.0.0.1:${port}/v3/card-processor/stripe/events`);
  const boot = () =>
    startServer({
      databaseUrl: database.url,
      port,
      env: {
        RAMPART_JOB_LEASE_SECONDS: SHORT_LEASE_SECONDS,
        RAMPART_CARD_PROCESSOR: 'stripe',
        RAMPART_STRIPE_SECRET_KEY: emulator.secretKey,
        RAMPART_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        RAMPART_STRIPE_API_URL: proxy.url,
        RAMPART_CARD_SMS_CODES: 'never',
        RAMPART_CARD_PROCESSOR_TIMEOUT_MS: TIMEOUT_MS,
        RAMPART_SANDBOX_CHAIN_DELAY_MS: chainDelayMs,
      },
    });
  return { emulator, proxy, db, boot };
}

async function placeOrder(remote: TestApp, partner: PartnerCredentials) {
  const { reservation, amount } = await lockedReservation(remote, partner);
  const body = orderBody(partner, reservation, amount, { debitCard: testCard(STRIPE_TEST_CARDS.success) });
  return { request: createOrderBearer(remote, partner, body), reservation, amount };
}

async function orderOf(db: pg.Pool, reservation: string) {
  const { rows } = await db.query('SELECT id, status FROM wallet_orders WHERE reservation_id = $1', [
    reservation,
  ]);
  return rows[0] as { id: string; status: string } | undefined;
}

async function captureDone(h: Pick<Harness, 'db'>, orderId: string): Promise<boolean> {
  const { rows } = await h.db.query(
    `SELECT state FROM card_payment_operations WHERE order_id = $1 AND kind = 'capture'`,
    [orderId],
  );
  return rows[0]?.state === 'DONE';
}

function intentsOf(h: Pick<Harness, 'emulator'>, orderId: string) {
  return [...h.emulator.state.intents.values()].filter((intent) => intent.metadata?.order_id === orderId);
}

/**
 * The invariants after the dust settles: one PaymentIntent at most per order; every captured
 * amount equals the order's capture entry; no PaymentIntent left capturable unless its order
 * still waits (its capture or void then follows).
 */
async function expectConsistent(h: Harness) {
  const { rows: orders } = await h.db.query<{ id: string; status: string; source_amount: string }>(
    'SELECT id, status, source_amount::text FROM wallet_orders',
  );
  for (const order of orders) {
    const intents = intentsOf(h, order.id);
    expect(intents.length, `PaymentIntents of ${order.id}`).toBeLessThanOrEqual(1);
    const intent = intents[0];
    const { rows } = await h.db.query<{ total: string | null }>(
      `SELECT sum(-p.amount)::text AS total FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
       WHERE e.kind = 'order.capture' AND e.reference = $1 AND p.owner = 'external:card'`,
      [`order:${order.id}`],
    );
    const booked = rows[0]!.total === null ? 0 : Math.round(Number(rows[0]!.total) * 100);
    expect(intent?.amount_received ?? 0, `captured for ${order.id}`).toBe(booked);
    if (intent?.status === 'requires_capture') expect(order.status).toBe('RUNNING_CHECKS');
  }
}

describe('SIGKILL at each step of a Stripe card order, then restart', () => {
  it('after Stripe authorized, before Rampart recorded it: the poll finds the one PaymentIntent and the order completes', async () => {
    const h = await harness();
    let server = await h.boot();
    const partner = await roomyPartner(server.remote);
    const authorized = h.proxy.holdNext(
      (method, path) => method === 'POST' && path === '/v1/payment_intents',
    );
    const placed = await placeOrder(server.remote, partner);
    placed.request.catch(() => undefined);
    await authorized;
    await server.kill();
    expect(
      h.emulator.paymentIntent(intentsOf(h, (await orderOf(h.db, placed.reservation))!.id)[0]!.id).status,
    ).toBe('requires_capture');
    const order = await orderOf(h.db, placed.reservation);
    expect(order).toMatchObject({ status: 'RUNNING_CHECKS' });
    server = await h.boot();
    expect(
      await eventually(async () => (await orderOf(h.db, placed.reservation))?.status === 'COMPLETE', 40_000),
    ).toBe(true);
    // Captured at delivery, by the capture's own job after the order's COMMIT.
    expect(await eventually(() => captureDone(h, order!.id), 20_000)).toBe(true);
    await h.emulator.webhooks.idle();
    await expectConsistent(h);
    await server.stop();
  }, 90_000);

  it('while a capture is in flight: the capture job asks again with the same key, one capture', async () => {
    const h = await harness();
    let server = await h.boot();
    const partner = await roomyPartner(server.remote);
    // The capture is made at Stripe, and its answer never comes back.
    const captured = h.proxy.holdNext((method, path) => method === 'POST' && path.endsWith('/capture'));
    const placed = await placeOrder(server.remote, partner);
    expect((await placed.request).status).toBe(200);
    await captured;
    await server.kill();
    server = await h.boot();
    const order = await orderOf(h.db, placed.reservation);
    const done = await eventually(() => captureDone(h, order!.id), 40_000);
    expect(done).toBe(true);
    const captures = h.emulator.requests.filter((r) => r.path.endsWith('/capture'));
    expect(new Set(captures.map((r) => r.idempotencyKey)).size).toBe(1);
    await expectConsistent(h);
    await server.stop();
  }, 90_000);

  it('while the delivery is in flight: the order completes after the restart, captured once', async () => {
    const h = await harness('2000');
    let server = await h.boot();
    const partner = await roomyPartner(server.remote);
    const placed = await placeOrder(server.remote, partner);
    expect((await placed.request).status).toBe(200);
    const processing = await eventually(
      async () => (await orderOf(h.db, placed.reservation))?.status === 'PROCESSING',
      15_000,
    );
    expect(processing).toBe(true);
    await server.kill();
    await sleep(100);
    server = await h.boot();
    expect(
      await eventually(async () => (await orderOf(h.db, placed.reservation))?.status === 'COMPLETE', 40_000),
    ).toBe(true);
    const order = await orderOf(h.db, placed.reservation);
    expect(await eventually(() => captureDone(h, order!.id), 20_000)).toBe(true);
    await expectConsistent(h);
    await server.stop();
  }, 90_000);
});
