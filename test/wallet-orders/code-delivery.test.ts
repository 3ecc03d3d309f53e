import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/platform/db/pool.ts';
import { DELIVER_CODE_JOB } from '../../src/wallet-orders/code-delivery.ts';
import { smsCodeSender, undeliveredCodes } from '../../src/wallet-orders/code-sender.ts';
import { parseTwilioSettings, type TwilioSettings } from '../../src/wallet-orders/twilio-settings.ts';
import { twilioSmsChannel } from '../../src/wallet-orders/twilio-sms.ts';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { signedFetch } from '../helpers/partner.ts';
import { startTwilioEmulator, type TwilioEmulator } from '../helpers/twilio-emulator.ts';
import {
  CARDS,
  createOrder,
  orderBody,
  orderWithCard,
  postSigned,
  readOrder,
  startCardOrderApp,
  workerFor,
} from './support.ts';

/**
 * SMS codes through Twilio (docs/contract.md, decisions 123 and 124), against the Twilio
 * emulator (test/helpers/twilio-emulator.ts) reached through the SDK's own custom HTTP client:
 * the code is queued sealed in the order's transaction, sent once after COMMIT, retried while
 * Twilio does not confirm, never stored in clear, and completes the step when submitted.
 */

const SENDER = '+15005550006';
let twilio: TwilioEmulator;
let t: TestApp;
let partner: PartnerCredentials;

function settingsFor(emulator: TwilioEmulator, token = emulator.authToken): TwilioSettings {
  return parseTwilioSettings(
    {
      RAMPART_TWILIO_ACCOUNT_SID: emulator.accountSid,
      RAMPART_TWILIO_AUTH_TOKEN: token,
      RAMPART_TWILIO_FROM: SENDER,
      RAMPART_TWILIO_API_URL: emulator.url,
    },
    false,
  )!;
}

beforeAll(async () => {
  twilio = await startTwilioEmulator();
  ({ t, partner } = await startCardOrderApp({
    ports: { codeSender: smsCodeSender(twilioSmsChannel(settingsFor(twilio))) },
  }));
});
afterAll(async () => Promise.all([t.close(), twilio.close()]));
beforeEach(() => {
  twilio.received.length = 0;
  twilio.accepted.length = 0;
});

async function orderNeedingCodes(phone = '+14155550100') {
  const created = await orderWithCard(t, partner, CARDS.codes, { phone });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { orderId: String(created.body.id), reservation: created.reservation };
}

const codeOf = (body: string) => /^(\d{6}) /.exec(body)![1]!;

async function deliveryJob(orderId: string) {
  const { rows } = await t.database.db.query<{
    id: number;
    state: string;
    attempts: number;
    last_error: string | null;
  }>(`SELECT id, state, attempts, last_error FROM jobs WHERE kind = $1 AND payload->>'orderId' = $2`, [
    DELIVER_CODE_JOB,
    orderId,
  ]);
  return rows;
}

async function delivery(orderId: string) {
  const { rows } = await t.database.db.query(
    'SELECT state, attempts, provider_reference, detail FROM wallet_order_code_deliveries WHERE order_id = $1',
    [orderId],
  );
  return rows;
}

/** Every row of every table of the database, as text, that contains `needle`. */
async function rowsContaining(q: Queryable, needle: string) {
  const { rows: tables } = await q.query<{ name: string }>(
    `SELECT quote_ident(table_name) AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const found: string[] = [];
  for (const { name } of tables) {
    const { rows } = await q.query<{ row: string }>(
      `SELECT t::text AS row FROM ${name} t WHERE strpos(t::text, $1) > 0`,
      [needle],
    );
    found.push(...rows.map(({ row }) => `${name}: ${row}`));
  }
  return found;
}

function submitCodes(body: Record<string, unknown>) {
  return postSigned(t, partner, '/v3/debitcard/authorize/partner', body);
}

describe('an order whose card needs codes, with Twilio as the SMS provider', () => {
  it('asks for the SMS code only, and sends it once, after COMMIT, to the order phone', async () => {
    const { orderId } = await orderNeedingCodes();
    expect(twilio.received).toHaveLength(0);
    const step = await signedFetch(t, partner, { path: `/v3/debitcard/authorization/${orderId}` });
    expect(await step.json()).toMatchObject({ smsNeeded: true, card2faNeeded: false });
    expect(await deliveryJob(orderId)).toMatchObject([{ state: 'pending' }]);

    await workerFor(t).drain();
    expect(twilio.accepted).toHaveLength(1);
    const [message] = twilio.accepted;
    expect(message).toMatchObject({ to: '+14155550100', from: SENDER, status: 'queued' });
    expect(message!.body).toMatch(/^\d{6} is your card purchase verification code/);
    expect(await delivery(orderId)).toEqual([
      { state: 'SENT', attempts: 1, provider_reference: message!.sid, detail: null },
    ]);
    expect(await rowsContaining(t.database.db, codeOf(message!.body!))).toEqual([]);
  });

  it('completes the step when the code is submitted through POST /v3/debitcard/authorize/partner', async () => {
    const { orderId, reservation } = await orderNeedingCodes();
    await workerFor(t).drain();
    const code = codeOf(twilio.accepted[0]!.body!);
    const card2fa = await submitCodes({
      type: 'CARD2FA',
      walletOrderId: orderId,
      reservation,
      card2fa: code,
    });
    expect(card2fa.status).toBe(400);
    expect(await card2fa.json()).toMatchObject({ errorCode: 'validation.codeNotAsked' });

    const wrong = code === '000000' ? '111111' : '000000';
    const mismatch = await submitCodes({ type: 'SMS', walletOrderId: orderId, reservation, sms: wrong });
    expect(mismatch.status).toBe(400);
    const right = await submitCodes({ type: 'SMS', walletOrderId: orderId, reservation, sms: code });
    expect(right.status).toBe(200);
    expect(await right.json()).toEqual({ walletOrderId: orderId, success: true });
    await workerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('COMPLETE');
    expect(twilio.accepted).toHaveLength(1);
  });

  it('sends nothing when the job runs again after the send was recorded (a crash before it was marked done)', async () => {
    const { orderId } = await orderNeedingCodes();
    await workerFor(t).drain();
    const [job] = await deliveryJob(orderId);
    await t.database.db.query(
      `UPDATE jobs SET state = 'running', locked_until = now() - interval '1 second' WHERE id = $1`,
      [job!.id],
    );
    await workerFor(t).drain();
    expect(await deliveryJob(orderId)).toMatchObject([{ state: 'done', attempts: 2 }]);
    expect(twilio.received).toHaveLength(1);
    expect(await delivery(orderId)).toMatchObject([{ state: 'SENT', attempts: 1 }]);
  });

  it('sends once when the worker died holding the job before it sent', async () => {
    const { orderId } = await orderNeedingCodes();
    const [job] = await deliveryJob(orderId);
    await t.database.db.query(
      `UPDATE jobs SET state = 'running', attempts = 1, locked_until = now() - interval '1 second' WHERE id = $1`,
      [job!.id],
    );
    await workerFor(t).drain();
    expect(twilio.accepted.map((message) => message.to)).toEqual(['+14155550100']);
    expect(await delivery(orderId)).toMatchObject([{ state: 'SENT', attempts: 1 }]);
  });

  it('retries while Twilio answers 500, and the error kept names neither the code nor the phone', async () => {
    const { orderId } = await orderNeedingCodes();
    twilio.failNext(500);
    await workerFor(t).drain();
    expect(twilio.received).toHaveLength(1);
    expect(twilio.accepted).toHaveLength(0);
    const [failed] = await deliveryJob(orderId);
    expect(failed).toMatchObject({ state: 'pending', attempts: 1 });
    expect(failed!.last_error).toBe('twilio did not confirm the SMS: Twilio answered 500, error 20500');
    expect(await delivery(orderId)).toMatchObject([{ state: 'SENDING', attempts: 1 }]);

    await t.database.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [failed!.id]);
    await workerFor(t).drain();
    expect(twilio.accepted).toHaveLength(1);
    expect(await delivery(orderId)).toMatchObject([{ state: 'SENT', attempts: 2 }]);
    expect(await deliveryJob(orderId)).toMatchObject([{ state: 'done' }]);
  });

  it('records a number Twilio refuses (21211) and does not ask again', async () => {
    const { orderId } = await orderNeedingCodes('+15005550001');
    await workerFor(t).drain();
    expect(twilio.received).toHaveLength(1);
    expect(await delivery(orderId)).toEqual([
      { state: 'REFUSED', attempts: 1, provider_reference: null, detail: 'Twilio answered 400, error 21211' },
    ]);
    expect(await deliveryJob(orderId)).toMatchObject([{ state: 'done' }]);
  });

  it('does not send the code of a step that expired before the job ran', async () => {
    const { orderId } = await orderNeedingCodes();
    const offset = t.ctx.clock.currentOffsetMs();
    t.ctx.clock.setOffsetMs(offset + 10 * 60 * 1000 + 1000);
    try {
      await workerFor(t).drain();
    } finally {
      t.ctx.clock.setOffsetMs(offset);
    }
    expect(twilio.received).toHaveLength(0);
    expect(await delivery(orderId)).toMatchObject([{ state: 'ABANDONED' }]);
  });
});

describe('the Twilio channel against the emulator', () => {
  const message = { to: '+14155550100', body: '123456 is your card purchase verification code.' };

  it('reports wrong credentials as Twilio refuses them: 401, error 20003', async () => {
    const channel = twilioSmsChannel(settingsFor(twilio, 'f'.repeat(32)));
    expect(await channel.send(message)).toEqual({
      sent: false,
      unconfirmed: false,
      detail: 'Twilio answered 401, error 20003',
    });
    expect(twilio.received).toHaveLength(0);
  });

  it('reports no answer at all as unconfirmed', async () => {
    const gone = await startTwilioEmulator();
    await gone.close();
    const channel = twilioSmsChannel(settingsFor(gone));
    expect(await channel.send(message)).toMatchObject({ sent: false, unconfirmed: true });
  });

  it('sends through a Messaging Service when RAMPART_TWILIO_FROM names one', async () => {
    const service = `MG${'a'.repeat(32)}`;
    const settings = { ...settingsFor(twilio), sender: { messagingServiceSid: service } };
    const outcome = await twilioSmsChannel(settings).send(message);
    expect(outcome).toMatchObject({ sent: true });
    expect(twilio.accepted[0]).toMatchObject({
      messaging_service_sid: service,
      from: null,
      status: 'accepted',
    });
  });
});

describe("the emulator's refusals, as Twilio words them", () => {
  async function post(form: Record<string, string>, token = twilio.authToken) {
    const response = await fetch(`${twilio.url}/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${twilio.accountSid}:${token}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
    });
    return { status: response.status, body: (await response.json()) as { code: number; status: number } };
  }

  it('answers 400 21604 without To, 21603 without a sender, 21602 without Body, 401 20003 for a wrong token', async () => {
    expect(await post({ From: SENDER, Body: 'x' })).toMatchObject({ status: 400, body: { code: 21604 } });
    expect(await post({ To: '+14155550100', Body: 'x' })).toMatchObject({
      status: 400,
      body: { code: 21603 },
    });
    expect(await post({ To: '+14155550100', From: SENDER })).toMatchObject({
      status: 400,
      body: { code: 21602 },
    });
    expect(await post({ To: '+14155550100', From: SENDER, Body: 'x' }, 'nope')).toMatchObject({
      status: 401,
      body: { code: 20003, status: 401 },
    });
    expect(twilio.accepted).toHaveLength(0);
  });
});

describe('production without an SMS provider', () => {
  it('refuses an order whose card needs codes with 503 walletOrder.codesUndeliverable, writing nothing', async () => {
    const other = await startCardOrderApp({ ports: { codeSender: undeliveredCodes } });
    try {
      const refused = await orderWithCard(other.t, other.partner, CARDS.codes);
      const { reservation, amount } = refused;
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ errorCode: 'walletOrder.codesUndeliverable' });
      const { rows } = await other.t.database.db.query(
        `SELECT (SELECT count(*) FROM wallet_orders)::int AS orders, (SELECT count(*) FROM jobs WHERE kind = $1)::int AS deliveries`,
        [DELIVER_CODE_JOB],
      );
      expect(rows[0]).toEqual({ orders: 0, deliveries: 0 });
      // The reservation was not used: the same card without a step is placed on it.
      const placed = await createOrder(other.t, other.partner, orderBody(other.partner, reservation, amount));
      expect(placed.status).toBe(200);
    } finally {
      await other.t.close();
    }
  });
});
