import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorProcessor } from '../../src/cards/connector-processor.ts';
import { operatorHeaders, type TestApp } from '../helpers/app.ts';
import { type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { ScriptedConnector } from '../helpers/scripted-connector.ts';
import { orderWithCard, postSigned, readOrder, startCardOrderApp, workerFor } from './support.ts';

/**
 * The card order lifecycle around a remote processor (docs/contract.md, "Card processors"),
 * through the HTTP API, with a scripted double of Rampart's own connector port: what Rampart
 * records, when it asks, how it resolves. The Stripe connector and its emulator are exercised in
 * stripe-*.test.ts.
 */
const APPROVE = '4111111111111111';
const DECLINE = '4000000000000002';
const CHALLENGE = '4000000000003220';
const UNANSWERED = '4000000000070005';

let t: TestApp;
let partner: PartnerCredentials;
const connector = new ScriptedConnector();

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp({
    ports: { cardProcessor: connectorProcessor(connector) },
    env: { RAMPART_CARD_SMS_CODES: 'never', RAMPART_CARD_PROCESSOR_TIMEOUT_MS: '2000' },
  }));
});
afterAll(async () => t.close());

const place = (number: string, extra: Record<string, unknown> = {}) =>
  orderWithCard(t, partner, number, extra);

const payment = async (orderId: string) =>
  (await t.database.db.query('SELECT * FROM card_payments WHERE order_id = $1', [orderId])).rows[0];
const operations = async (orderId: string) =>
  (
    await t.database.db.query(
      'SELECT kind, n, state FROM card_payment_operations WHERE order_id = $1 ORDER BY kind, n',
      [orderId],
    )
  ).rows;
const holdsOf = async (orderId: string) =>
  (
    await t.database.db.query('SELECT state FROM ledger_holds WHERE reference = $1', [`order:${orderId}`])
  ).rows.map((row) => row.state);
const authorizeKeys = (orderId: string) =>
  connector.calls.filter((call) => call.operation === 'authorize' && call.key?.includes(orderId));
/** Runs the worker until nothing is left to do now, retries made due at once (they back off in real time). */
async function settle() {
  for (let round = 0; round < 4; round++) {
    await t.database.db.query(
      `UPDATE jobs SET run_at = now() WHERE state = 'pending' AND kind IN ('cards.operation', 'cards.authorize')`,
    );
    await workerFor(t).drain();
  }
}
const pollsNow = () => t.database.db.query(`UPDATE jobs SET run_at = now() WHERE kind = 'cards.authorize'`);

describe('a remote processor: authorize after COMMIT', () => {
  it('approves a card: the order is cleared, the worker captures through the outbox, the card number is never stored', async () => {
    const created = await place(APPROVE);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const orderId = String(created.body.id);
    expect(created.body.status).toBe('RUNNING_CHECKS');
    const stored = await payment(orderId);
    expect(stored).toMatchObject({ state: 'AUTHORIZED', token: 'tok_1111', processor: 'scripted' });
    expect(JSON.stringify(stored)).not.toContain(APPROVE);
    await workerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('COMPLETE');
    expect(await operations(orderId)).toEqual([{ kind: 'capture', n: 1, state: 'DONE' }]);
    const captured = connector.paymentOf(orderId)!;
    expect(captured.status).toBe('CAPTURED');
    expect(captured.capturedAmount.toFixed()).toBe(created.amount);
    expect(authorizeKeys(orderId)).toHaveLength(1);
  });

  it('answers a decline with Wyre’s error; the order is FAILED, the hold and spend released, nothing to void', async () => {
    const created = await place(DECLINE);
    expect(created.status).toBe(400);
    expect(created.body.errorCode).toBe('validation.cardDeclined');
    expect(String(created.body.message)).not.toContain('generic_decline');
    const { rows } = await t.database.db.query(
      `SELECT o.id, o.status FROM wallet_orders o WHERE o.reservation_id = $1`,
      [created.reservation],
    );
    expect(rows).toHaveLength(1);
    const orderId = rows[0].id as string;
    expect(rows[0].status).toBe('FAILED');
    expect(await payment(orderId)).toMatchObject({ state: 'DECLINED', processor_code: 'generic_decline' });
    expect(await holdsOf(orderId)).toEqual(['voided']);
    const spend = await t.database.db.query('SELECT 1 FROM card_spend WHERE order_id = $1', [orderId]);
    expect(spend.rowCount).toBe(0);
    expect(await operations(orderId)).toEqual([]);
  });

  it('keeps an unanswered order pending; the status poll asks again with the same key and resolves it', async () => {
    connector.unanswered = 1;
    const created = await place(UNANSWERED);
    expect(created.status).toBe(200);
    const orderId = String(created.body.id);
    expect(created.body.status).toBe('RUNNING_CHECKS');
    expect(await payment(orderId)).toMatchObject({ state: 'AUTHORIZING', reference: null });
    await pollsNow();
    await workerFor(t).drain();
    await workerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('COMPLETE');
    const keys = authorizeKeys(orderId).map((call) => call.key);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
    expect([...connector.payments.values()].filter((p) => p.orderId === orderId)).toHaveLength(1);
  });
});

describe('a remote processor: 3-D Secure', () => {
  async function challenged() {
    const created = await place(CHALLENGE);
    expect(created.status).toBe(200);
    const orderId = String(created.body.id);
    const answer = await signedFetch(t, partner, { path: `/v3/debitcard/authorization/${orderId}` });
    const state = (await answer.json()) as { authorization3dsUrl: string };
    expect(state.authorization3dsUrl).toMatch(new RegExp(`/card-processor/3ds/${orderId}/`));
    const { pathname, search } = new URL(state.authorization3dsUrl);
    return { orderId, url: `${t.baseUrl}${pathname}${search}` };
  }

  it('sends the buyer to the issuer, and the return resolves the step: approved, processed', async () => {
    const { orderId, url } = await challenged();
    const start = await fetch(url, { redirect: 'manual' });
    expect(start.status).toBe(303);
    const reference = (await payment(orderId)).reference as string;
    expect(start.headers.get('location')).toBe(`https://issuer.example/challenge/${reference}`);
    connector.decideChallenge(reference, true);
    const back = await fetch(url.replace('/card-processor/3ds/', '/card-processor/return/'), {
      redirect: 'manual',
    });
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('Payment approved');
    await workerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('COMPLETE');
  });

  it('a declined challenge fails the order with the 3-D Secure failure', async () => {
    const { orderId, url } = await challenged();
    const reference = (await payment(orderId)).reference as string;
    connector.decideChallenge(reference, false);
    const back = await fetch(url.replace('/card-processor/3ds/', '/card-processor/return/'));
    expect(await back.text()).toContain('Payment declined');
    expect(await readOrder(t, partner, orderId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'validation.authorization3dsDeclined',
    });
    expect(await holdsOf(orderId)).toEqual(['voided']);
  });

  it('a 3-D Secure step left to expire fails the order and voids the payment through the outbox', async () => {
    const { orderId } = await challenged();
    t.ctx.clock.setOffsetMs(t.ctx.clock.currentOffsetMs() + 11 * 60 * 1000);
    expect((await readOrder(t, partner, orderId)).status).toBe('FAILED');
    await workerFor(t).drain();
    expect(await operations(orderId)).toEqual([{ kind: 'void', n: 1, state: 'DONE' }]);
    expect(connector.paymentOf(orderId)!.status).toBe('VOIDED');
  });
});

describe('a remote processor: events', () => {
  const send = (body: unknown, signature = 'good') =>
    fetch(`${t.baseUrl}/v3/card-processor/scripted/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-scripted-signature': signature },
      body: JSON.stringify(body),
    });
  const event = (eventId: string, orderId: string | null, reference: string, status: string) => ({
    eventId,
    kind: 'payment.updated',
    orderId,
    payment: { reference, status, amount: '1', currency: 'USD', capturedAmount: '0' },
  });

  it('refuses a bad signature with 401 and changes nothing', async () => {
    const before = await t.database.db.query('SELECT count(*)::int AS n FROM card_processor_events');
    const response = await send(event('evt_bad', null, 'pay_1', 'AUTHORIZED'), 'forged');
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ errorCode: 'cardProcessor.invalidSignature' });
    const after = await t.database.db.query('SELECT count(*)::int AS n FROM card_processor_events');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('resolves a challenge by the event (found by reference), once; repeats and stale events change nothing', async () => {
    const created = await place(CHALLENGE);
    const orderId = String(created.body.id);
    const reference = (await payment(orderId)).reference as string;
    connector.decideChallenge(reference, true);
    expect((await send(event('evt_1', null, reference, 'AUTHORIZED'))).status).toBe(200);
    expect(await payment(orderId)).toMatchObject({ state: 'AUTHORIZED' });
    const jobs = async () =>
      (
        await t.database.db.query(
          `SELECT count(*)::int AS n FROM jobs WHERE kind = 'walletOrders.process' AND payload::text LIKE $1`,
          [`%${orderId}%`],
        )
      ).rows[0].n;
    expect(await jobs()).toBe(1);
    expect((await send(event('evt_1', null, reference, 'AUTHORIZED'))).status).toBe(200);
    expect((await send(event('evt_0', orderId, reference, 'CHALLENGE'))).status).toBe(200);
    expect((await send(event('evt_2', orderId, reference, 'DECLINED'))).status).toBe(200);
    expect(await jobs()).toBe(1);
    expect((await readOrder(t, partner, orderId)).status).toBe('RUNNING_CHECKS');
    const recorded = await t.database.db.query(
      'SELECT event_id, outcome FROM card_processor_events WHERE order_id = $1 ORDER BY event_id',
      [orderId],
    );
    expect(recorded.rows.map((row) => row.event_id)).toEqual(['evt_0', 'evt_1', 'evt_2']);
  });

  it('records an event for an unknown order and ignores it', async () => {
    expect((await send(event('evt_unknown', 'WO_UNKNOWN2345', 'pay_none', 'AUTHORIZED'))).status).toBe(200);
    const { rows } = await t.database.db.query(
      `SELECT outcome FROM card_processor_events WHERE event_id = 'evt_unknown'`,
    );
    expect(rows).toEqual([{ outcome: 'unknown-order' }]);
  });
});

describe('a remote processor: the outbox', () => {
  it('retries an unconfirmed capture with the same key; a refused one is recorded and booked as a loss', async () => {
    await settle(); // earlier tests' orders captured first: the failure below is this order's
    connector.failures.capture = 1;
    const first = await place(APPROVE);
    const firstId = String(first.body.id);
    await workerFor(t).drain();
    await t.database.db.query(
      `UPDATE jobs SET run_at = now() WHERE kind = 'cards.operation' AND state = 'pending'`,
    );
    await workerFor(t).drain();
    expect(await operations(firstId)).toEqual([{ kind: 'capture', n: 1, state: 'DONE' }]);
    const keys = connector.calls.filter(
      (call) => call.operation === 'capture' && call.key?.includes(firstId),
    );
    expect(keys.map((call) => call.key)).toEqual([
      `rampart-${firstId}-capture-1`,
      `rampart-${firstId}-capture-1`,
    ]);

    connector.refusals.add('capture');
    try {
      const second = await place(APPROVE);
      const secondId = String(second.body.id);
      await settle();
      expect(await operations(secondId)).toEqual([{ kind: 'capture', n: 1, state: 'FAILED' }]);
      const loss = await t.database.db.query(
        `SELECT p.owner, p.amount::text FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
         WHERE e.kind = 'order.captureRefused' AND e.reference = $1 ORDER BY p.owner`,
        [`order:${secondId}`],
      );
      expect(loss.rows).toEqual([
        { owner: 'external:card', amount: second.amount },
        { owner: 'house:card-losses', amount: `-${second.amount}` },
      ]);
      const attention = await fetch(`${t.baseUrl}/operator/v1/card-payments/attention`, {
        headers: operatorHeaders(),
      });
      expect(attention.status).toBe(200);
      const seen = (await attention.json()) as {
        operations: { orderId: string; kind: string; detail: string }[];
      };
      expect(seen.operations).toContainEqual(
        expect.objectContaining({ orderId: secondId, kind: 'capture', detail: 'capture refused' }),
      );
      const anonymous = await fetch(`${t.baseUrl}/operator/v1/card-payments/attention`);
      expect(anonymous.status).toBe(401);
    } finally {
      connector.refusals.delete('capture');
    }
  });
});

describe('a remote processor: codes', () => {
  it('asks an SMS code (and no CARD2FA) of a card’s first order under first-card-order', async () => {
    t.ctx.config.cardSmsCodes = 'first-card-order';
    try {
      const fresh = '4000000000000044';
      const created = await place(fresh);
      const orderId = String(created.body.id);
      const state = await signedFetch(t, partner, { path: `/v3/debitcard/authorization/${orderId}` });
      expect(await state.json()).toMatchObject({ smsNeeded: true, card2faNeeded: false });
      const submitted = await postSigned(t, partner, '/v3/debitcard/authorize/partner', {
        type: 'SMS',
        walletOrderId: orderId,
        reservation: created.reservation,
        sms: '000000',
      });
      expect(submitted.status).toBe(200);
      await workerFor(t).drain();
      expect((await readOrder(t, partner, orderId)).status).toBe('COMPLETE');
      const again = await place(fresh);
      const next = await signedFetch(t, partner, {
        path: `/v3/debitcard/authorization/${String(again.body.id)}`,
      });
      expect(await next.json()).toMatchObject({ smsNeeded: false, card2faNeeded: false });
    } finally {
      t.ctx.config.cardSmsCodes = 'never';
    }
  });
});
