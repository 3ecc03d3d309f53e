import { expect } from 'vitest';
import { CAPTURE_MARGIN_MS, captureAgingOrders } from '../../src/wallet-orders/capture-sweep.ts';
import { processOrder } from '../../src/wallet-orders/transitions.ts';
import { operatorHeaders, type TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { createOrder, lockedReservation, orderBody, postSigned } from './support.ts';

/** Helpers of the refund, dispute and card reconciliation tests. */

/** A new order for `partner`, RUNNING_CHECKS (no worker ran yet); answers its id and amount. */
export async function placeOrder(
  t: TestApp,
  partner: PartnerCredentials,
  extra: Record<string, unknown> = {},
) {
  const { reservation, amount } = await lockedReservation(t, partner, extra);
  const created = await createOrder(t, partner, orderBody(partner, reservation, amount, extra));
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { orderId: String(created.body.id), amount };
}

export async function partnerRefund(
  t: TestApp,
  partner: PartnerCredentials,
  orderId: string,
  headers?: Record<string, string>,
) {
  const response = await postSigned(t, partner, `/v3/orders/${orderId}/refund/partner`, {}, headers);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function operatorCall(t: TestApp, method: string, path: string, body?: unknown) {
  const response = await fetch(`${t.baseUrl}${path}`, {
    method,
    headers: body === undefined ? { authorization: operatorHeaders().authorization! } : operatorHeaders(),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export function operatorRefund(t: TestApp, orderId: string, body: Record<string, unknown> = {}) {
  return operatorCall(t, 'POST', `/operator/v1/orders/${orderId}/refunds`, {
    requestedBy: 'ops@example.com',
    ...body,
  });
}

export function dispute(t: TestApp, orderId: string, action: 'OPEN' | 'WIN' | 'LOSE') {
  return operatorCall(t, 'POST', `/operator/v1/sandbox/orders/${orderId}/disputes`, { action });
}

/** The order's ledger balance of one owner: what its entries (reference order:<id>) moved. */
export async function orderMovement(t: TestApp, orderId: string, owner: string): Promise<string> {
  const { rows } = await t.database.db.query<{ total: string }>(
    `SELECT trim_scale(COALESCE(sum(p.amount), 0))::text AS total FROM ledger_postings p
     JOIN ledger_entries e ON e.id = p.entry_id WHERE e.reference = $1 AND p.owner = $2`,
    [`order:${orderId}`, owner],
  );
  return rows[0]!.total;
}

export async function orderStatus(t: TestApp, orderId: string) {
  const { rows } = await t.database.db.query<{ status: string; error_code: string | null }>(
    'SELECT status, error_code FROM wallet_orders WHERE id = $1',
    [orderId],
  );
  return rows[0]!;
}

export async function webhookStatuses(t: TestApp, orderId: string) {
  const { rows } = await t.database.db.query<{ body: string }>(
    'SELECT body FROM callback_deliveries WHERE trigger = $1 ORDER BY created_at, id',
    [`order:${orderId}`],
  );
  return rows.map((row) => (JSON.parse(String(row.body)) as { orderStatus: string }).orderStatus);
}

/** Everything a refused refund or dispute must leave as it was. */
export async function moneyState(t: TestApp) {
  const db = t.database.db;
  const read = async (sql: string) => (await db.query(sql)).rows;
  return {
    orders: await read('SELECT id, status, error_code, updated_at FROM wallet_orders ORDER BY id'),
    refunds: await read('SELECT * FROM card_refunds ORDER BY id'),
    disputes: await read('SELECT * FROM card_disputes ORDER BY reference'),
    entries: await read('SELECT count(*)::int AS n FROM ledger_entries'),
    balances: await read(
      'SELECT owner, currency, sum(total)::text AS total, sum(available)::text AS available FROM ledger_balances GROUP BY 1, 2 ORDER BY 1, 2',
    ),
    holds: await read('SELECT id, state FROM ledger_holds ORDER BY id'),
    sandbox: await read(
      'SELECT order_id, state, refunded::text FROM sandbox_card_authorizations ORDER BY order_id',
    ),
    sandboxRefunds: await read('SELECT refund_id FROM sandbox_card_refunds ORDER BY refund_id'),
    sends: await read('SELECT reference, status FROM chain_sends ORDER BY reference'),
    webhooks: await read('SELECT count(*)::int AS n FROM callback_deliveries'),
  };
}

/**
 * A PROCESSING order whose card the sweep captured before delivery (its authorization aging):
 * the sandbox clock moved past the capture margin for the sweep, then back.
 */
export async function capturedUndelivered(t: TestApp, orderId: string) {
  await processOrder(t.ctx, orderId);
  t.ctx.clock.setOffsetMs(t.ctx.cardProcessor.authorizationLifetimeMs - CAPTURE_MARGIN_MS + 60_000);
  try {
    expect(await captureAgingOrders(t.ctx)).toBeGreaterThanOrEqual(1);
  } finally {
    t.ctx.clock.setOffsetMs(0);
  }
}
