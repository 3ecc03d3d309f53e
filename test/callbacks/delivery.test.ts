import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueDelivery } from '../../src/callbacks/service.ts';
import type { DeliveryWorker } from '../../src/callbacks/worker.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
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
  waitFor,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials & { webhookSecret: string };
const receivers: Receiver[] = [];
const workers: DeliveryWorker[] = [];

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

function worker(...args: Parameters<typeof testWorker>) {
  const w = testWorker(...args);
  workers.push(w);
  w.start();
  return w;
}

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterEach(async () => {
  for (const r of receivers.splice(0)) r.release();
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  t.ctx.config.callbackRetries = 0;
});
afterAll(async () => {
  await t.close();
});

describe('transfer callbacks', () => {
  it('POSTs exactly {"subscriptionId","trigger"} signed with the partner secret, as application/json', async () => {
    const r = await receiver('accept');
    const transferId = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: r.url });
    const [queued] = await deliveriesOf(t, `transfer:${transferId}`);
    expect(queued).toMatchObject({ status: 'PENDING', attempts: 0 });
    worker(t);
    const got = await r.nth(1);
    const [delivery] = await settled(t, `transfer:${transferId}`);
    expect(got.body).toBe(
      `{"subscriptionId":"${delivery!.subscription_id}","trigger":"transfer:${transferId}"}`,
    );
    expect(delivery!.subscription_id).toMatch(/^DA_[2-9A-HJ-NP-Z]{11}$/);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^Rampart/);
    expect(
      verifySignature(partner.webhookSecret, got.headers['x-rampart-signature'] as string, got.body),
    ).toBe(true);
    expect(
      verifySignature(partner.webhookSecret, got.headers['x-rampart-signature'] as string, `${got.body} `),
    ).toBe(false);
    expect(verifySignature('WH-wrong', got.headers['x-rampart-signature'] as string, got.body)).toBe(false);
    expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 1, last_error: null });
    const attempts = await attemptRows(t, delivery!.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status_code: 200, error: null });
    expect(attempts[0]!.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('also notifies subscriptions to the account, the owner and the transfer, each with its own id', async () => {
    const r = await receiver('accept');
    const { rows } = await t.ctx.db.query<{ id: string }>(
      `INSERT INTO callback_subscriptions (id, partner_id, account_id, subscribe_to, notify_target, created_at)
       VALUES ('DA_ACCUNT23456', $1, $1, $2, $3, now()), ('DA_THERS234567', $1, $1, 'account:AC_NTTHXS23456', $3, now())
       RETURNING id`,
      [partner.accountId, `account:${partner.accountId}`, r.url],
    );
    expect(rows).toHaveLength(2);
    const transferId = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: r.url });
    worker(t);
    // The account's subscription is called with the account as trigger, the transfer's own with the transfer.
    const byAccount = await settled(t, `account:${partner.accountId}`);
    const deliveries = [
      ...(await settled(t, `transfer:${transferId}`)),
      ...byAccount.filter((d) => d.subscription_id === 'DA_ACCUNT23456'),
    ];
    expect(deliveries.map((d) => d.subscription_id)).toContain('DA_ACCUNT23456');
    expect(deliveries.map((d) => d.subscription_id)).not.toContain('DA_THERS234567');
    expect(deliveries).toHaveLength(2);
    const bodies = r.received.map((c) => JSON.parse(c.body) as { subscriptionId: string });
    expect(bodies.map((b) => b.subscriptionId).sort()).toEqual(
      deliveries.map((d) => d.subscription_id).sort(),
    );
    await t.ctx.db.query(
      `DELETE FROM callback_subscriptions WHERE id IN ('DA_ACCUNT23456', 'DA_THERS234567')`,
    );
  });

  it('without notifyUrl or a matching subscription nothing is queued', async () => {
    const transferId = await queueTransferCallbacks(t, partner.accountId);
    expect(await deliveriesOf(t, `transfer:${transferId}`)).toEqual([]);
  });

  it.each([
    ['fail500', /^HTTP 500$/, 500, 'refusedByReceiver (HTTP 500)'],
    ['redirect', /^HTTP 302 \(redirects are not followed\)$/, 302, 'refusedByReceiver (HTTP 302)'],
    ['destroy', /socket hang up|ECONNRESET/, null, 'unreachable'],
  ] as const)(
    'a receiver that answers %s: one attempt, FAILED, stored, subscription failure counted',
    async (behaviour, error, code, failure) => {
      const accepting = await receiver('accept');
      const r = await receiver(behaviour, accepting.url);
      const transferId = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: r.url });
      worker(t);
      const [delivery] = await settled(t, `transfer:${transferId}`);
      expect(delivery).toMatchObject({ status: 'FAILED', attempts: 1 });
      expect(delivery!.last_error).toMatch(error);
      expect(r.received).toHaveLength(1);
      expect(accepting.received).toHaveLength(0); // the redirect was not followed
      const attempts = await attemptRows(t, delivery!.id);
      expect(attempts).toHaveLength(1);
      expect(attempts[0]!.status_code).toBe(code);
      const { rows } = await t.ctx.db.query(
        'SELECT failure, fail_count FROM callback_subscriptions WHERE id = $1',
        [delivery!.subscription_id],
      );
      // The partner reads the coarse outcome only; the delivery above keeps the detail.
      expect(rows[0]).toEqual({ failure, fail_count: 1 });
    },
  );

  it('RAMPART_CALLBACK_RETRIES=2: three attempts with backoff, each stored, then FAILED', async () => {
    t.ctx.config.callbackRetries = 2;
    const r = await receiver('fail500');
    const transferId = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: r.url });
    worker(t);
    const [delivery] = await settled(t, `transfer:${transferId}`);
    expect(delivery).toMatchObject({ status: 'FAILED', attempts: 3, last_error: 'HTTP 500' });
    expect(r.received).toHaveLength(3);
    expect((await attemptRows(t, delivery!.id)).map((a) => a.status_code)).toEqual([500, 500, 500]);
  });

  it('a retry that succeeds ends DELIVERED and clears the subscription failure', async () => {
    t.ctx.config.callbackRetries = 1;
    const r = await receiver('destroy');
    const transferId = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: r.url });
    const [queued] = await deliveriesOf(t, `transfer:${transferId}`);
    // The first attempt fails; its retry (made due at once) goes to a receiver that accepts.
    const w = worker(t, { retryBaseMs: 3_600_000 });
    await waitFor(async () => (await deliveriesOf(t, `transfer:${transferId}`))[0]!.attempts === 1);
    const good = await receiver('accept');
    await t.ctx.db.query('UPDATE callback_deliveries SET url = $2, next_attempt_at = now() WHERE id = $1', [
      queued!.id,
      good.url,
    ]);
    const [delivery] = await settled(t, `transfer:${transferId}`);
    expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 2, last_error: null });
    expect(good.received).toHaveLength(1);
    const { rows } = await t.ctx.db.query(
      'SELECT failure, fail_count FROM callback_subscriptions WHERE id = $1',
      [delivery!.subscription_id],
    );
    expect(rows[0]).toEqual({ failure: null, fail_count: 0 });
    await w.stop();
  });

  it('a receiver that hangs does not hold up another delivery queued after it', async () => {
    const hanging = await receiver('hang');
    const healthy = await receiver('accept');
    worker(t, { concurrency: 2 });
    await queueTransferCallbacks(t, partner.accountId, { notifyUrl: hanging.url });
    const held = await hanging.nth(1);
    const transferId = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: healthy.url });
    await healthy.nth(1);
    const [delivery] = await settled(t, `transfer:${transferId}`);
    expect(delivery!.status).toBe('DELIVERED');
    // The hanging request is still open: the healthy one did not wait for it.
    expect(held.closed()).toBe(false);
  });

  it('a receiver that hangs past the timeout fails that attempt with the reason', async () => {
    const hanging = await receiver('hang');
    const transferId = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: hanging.url });
    worker(t, { timeoutMs: 100 });
    const [delivery] = await settled(t, `transfer:${transferId}`);
    expect(delivery).toMatchObject({ status: 'FAILED', attempts: 1, last_error: 'timed out after 100 ms' });
  });

  it('a delivery claimed by a worker that died is attempted again after its lease (at-least-once)', async () => {
    const r = await receiver('accept');
    const transferId = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: r.url });
    // A worker took it and died: a claim whose lease has already run out.
    await t.ctx.db.query(
      `UPDATE callback_deliveries SET claim_token = 'dead-worker', locked_until = now() - interval '1 second'
       WHERE trigger = $1`,
      [`transfer:${transferId}`],
    );
    worker(t);
    const [delivery] = await settled(t, `transfer:${transferId}`);
    expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    expect(r.received).toHaveLength(1);
  });

  it('a delivery whose lease is live is left to its holder', async () => {
    const r = await receiver('accept');
    const transferId = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: r.url });
    await t.ctx.db.query(
      `UPDATE callback_deliveries SET claim_token = 'live-worker', locked_until = now() + interval '1 hour'
       WHERE trigger = $1`,
      [`transfer:${transferId}`],
    );
    const other = await receiver('accept');
    const otherTransfer = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: other.url });
    worker(t);
    await settled(t, `transfer:${otherTransfer}`);
    expect(r.received).toHaveLength(0);
    expect((await deliveriesOf(t, `transfer:${transferId}`))[0]!.status).toBe('PENDING');
    await t.ctx.db.query('UPDATE callback_deliveries SET status = $2 WHERE trigger = $1', [
      `transfer:${transferId}`,
      'FAILED',
    ]);
  });

  it('a transaction that rolls back queues nothing', async () => {
    const r = await receiver('accept');
    await expect(
      withTransaction(t.ctx.db, async (tx) => {
        const { notifyTransferCreated } = await import('../../src/callbacks/service.ts');
        await notifyTransferCreated(t.ctx, tx, {
          accountId: partner.accountId,
          transferId: 'TF_RXLLBACK234',
          owner: `account:${partner.accountId}`,
          notifyUrl: r.url,
        });
        throw new Error('transfer failed');
      }),
    ).rejects.toThrow('transfer failed');
    expect(await deliveriesOf(t, 'transfer:TF_RXLLBACK234')).toEqual([]);
  });

  it('enqueueDelivery sends any JSON body signed the same way (wallet-order webhooks)', async () => {
    const r = await receiver('accept');
    await withTransaction(t.ctx.db, (tx) =>
      enqueueDelivery(t.ctx, tx, {
        accountId: partner.accountId,
        subscriptionId: null,
        trigger: 'order:WO_ENQUEUE2345',
        url: r.url,
        body: { id: 'WO_ENQUEUE2345', status: 'COMPLETE', amount: 12.5 },
      }),
    );
    worker(t);
    const got = await r.nth(1);
    expect(got.body).toBe('{"id":"WO_ENQUEUE2345","status":"COMPLETE","amount":12.5}');
    expect(
      verifySignature(partner.webhookSecret, got.headers['x-rampart-signature'] as string, got.body),
    ).toBe(true);
    const [delivery] = await settled(t, 'order:WO_ENQUEUE2345');
    expect(delivery).toMatchObject({ status: 'DELIVERED', subscription_id: null });
  });
});
