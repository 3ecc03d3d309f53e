import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  attemptRows,
  deliveriesOf,
  queueTransferCallbacks,
  type Receiver,
  settled,
  startReceiver,
  testWorker,
  verifySignature,
} from './support.ts';

interface DeliveryBody {
  id: string;
  subscriptionId: string | null;
  trigger: string;
  url: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: number;
}

let t: TestApp;
let partner: PartnerCredentials & { webhookSecret: string };
let failing: Receiver;
let failedTransfer: string;

const operator = (method: string, path: string) =>
  fetch(`${t.baseUrl}${path}`, { method, headers: { authorization: operatorHeaders().authorization ?? '' } });

async function list(query: string) {
  const response = await operator('GET', `/operator/v1/callbacks${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { data: DeliveryBody[] };
}

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
  failing = await startReceiver('fail500');
  failedTransfer = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: failing.url });
  const worker = testWorker(t);
  worker.start();
  await settled(t, `transfer:${failedTransfer}`);
  await worker.stop();
});
afterAll(async () => {
  await failing.close();
  await t.close();
});

describe('GET /operator/v1/callbacks', () => {
  it('lists FAILED deliveries as {id, subscriptionId, trigger, url, status, attempts, lastError, createdAt}', async () => {
    const pending = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: failing.url });
    const { data } = await list('?status=FAILED');
    const [failed] = await deliveriesOf(t, `transfer:${failedTransfer}`);
    const item = data.find((d) => d.id === failed!.id);
    expect(item).toMatchObject({
      id: expect.stringMatching(/^CB_[2-9A-HJ-NP-Z]{11}$/),
      subscriptionId: failed!.subscription_id,
      trigger: `transfer:${failedTransfer}`,
      url: failing.url,
      status: 'FAILED',
      attempts: 1,
      lastError: 'HTTP 500',
      createdAt: expect.any(Number),
    });
    expect(data.every((d) => d.status === 'FAILED')).toBe(true);
    const queued = await list('?status=PENDING');
    expect(queued.data.map((d) => d.trigger)).toContain(`transfer:${pending}`);
    expect(queued.data.map((d) => d.trigger)).not.toContain(`transfer:${failedTransfer}`);
    expect((await list('?limit=1')).data).toHaveLength(1);
    await t.ctx.db.query(`UPDATE callback_deliveries SET status = 'FAILED' WHERE trigger = $1`, [
      `transfer:${pending}`,
    ]);
  });

  it('one delivery shows every attempt with status code and latency', async () => {
    const [failed] = await deliveriesOf(t, `transfer:${failedTransfer}`);
    const response = await operator('GET', `/operator/v1/callbacks/${failed!.id}`);
    const body = (await response.json()) as { attemptLog: { statusCode: number; latencyMs: number }[] };
    expect(body.attemptLog).toEqual([
      { startedAt: expect.any(Number), statusCode: 500, latencyMs: expect.any(Number), error: 'HTTP 500' },
    ]);
  });

  it('bad parameters and missing credentials get the envelope', async () => {
    await expectEnvelopeResponse(
      await operator('GET', '/operator/v1/callbacks?status=LOST'),
      400,
      'ValidationException',
    );
    await expectEnvelopeResponse(
      await operator('GET', '/operator/v1/callbacks?limit=0'),
      400,
      'ValidationException',
    );
    await expectEnvelopeResponse(
      await fetch(`${t.baseUrl}/operator/v1/callbacks`),
      401,
      'AccessDeniedException',
    );
  });
});

describe('POST /operator/v1/callbacks/{deliveryId}/resend', () => {
  it('queues a new attempt, audited; the worker sends it signed afresh and it is delivered', async () => {
    const accepting = await startReceiver('accept');
    try {
      const [failed] = await deliveriesOf(t, `transfer:${failedTransfer}`);
      // The receiver was fixed meanwhile: point the stored delivery at it.
      await t.ctx.db.query('UPDATE callback_deliveries SET url = $2 WHERE id = $1', [
        failed!.id,
        accepting.url,
      ]);
      const response = await operator('POST', `/operator/v1/callbacks/${failed!.id}/resend`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: failed!.id, status: 'PENDING', attempts: 1 });
      const { rows: audit } = await t.ctx.db.query(
        `SELECT action, target, outcome FROM operator_audit WHERE target = $1`,
        [`callback:${failed!.id}`],
      );
      expect(audit).toEqual([
        {
          action: 'POST /operator/v1/callbacks/:deliveryId/resend',
          target: `callback:${failed!.id}`,
          outcome: 'ok',
        },
      ]);
      const worker = testWorker(t);
      worker.start();
      const got = await accepting.nth(1);
      const [delivery] = await settled(t, `transfer:${failedTransfer}`);
      await worker.stop();
      expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 2, last_error: null });
      expect(got.body).toBe(failed!.body);
      expect(
        verifySignature(partner.webhookSecret, got.headers['x-rampart-signature'] as string, got.body),
      ).toBe(true);
      expect((await attemptRows(t, failed!.id)).map((a) => a.status_code)).toEqual([500, 200]);
    } finally {
      await accepting.close();
    }
  });

  it('a delivery still PENDING is refused; an unknown one is 404; both change nothing', async () => {
    const pending = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: failing.url });
    const [queued] = await deliveriesOf(t, `transfer:${pending}`);
    const before = await snapshotTables(t.database.db);
    await expectEnvelopeResponse(
      await operator('POST', `/operator/v1/callbacks/${queued!.id}/resend`),
      400,
      'ValidationException',
      { errorCode: 'callbacks.deliveryPending' },
    );
    await expectEnvelopeResponse(
      await operator('POST', '/operator/v1/callbacks/CB_2222222222Z/resend'),
      404,
      'NotFoundException',
    );
    await expectEnvelopeResponse(
      await operator('POST', '/operator/v1/callbacks/x/resend'),
      404,
      'NotFoundException',
    );
    expect(await snapshotTables(t.database.db)).toEqual(before);
    await t.ctx.db.query(`UPDATE callback_deliveries SET status = 'FAILED' WHERE id = $1`, [queued!.id]);
  });
});
