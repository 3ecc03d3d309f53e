import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/callbacks/worker.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  approvedUser,
  credit,
  startTransfersApp,
  type TransfersFixture,
  transfer,
} from '../transfers/support.ts';
import {
  deliveriesOf,
  type Receiver,
  settled,
  startReceiver,
  testWorker,
  verifySignature,
} from './support.ts';

let fx: TransfersFixture;
let partner: PartnerCredentials & { webhookSecret?: string };
let secret: string;
let receiver: Receiver;
let worker: DeliveryWorker;
let userId: string;

beforeAll(async () => {
  fx = await startTransfersApp();
  partner = fx.partner;
  const read = await signedFetch(fx.t, partner, { path: '/v3/subscriptions/signingSecret' });
  secret = ((await read.json()) as { webhookSecret: string }).webhookSecret;
  receiver = await startReceiver('accept');
  userId = await approvedUser(fx.t, partner);
  await credit(fx.t, `account:${partner.accountId}`, 'USD', '100');
  await credit(fx.t, `user:${userId}`, 'USD', '100');
  worker = testWorker(fx.t);
  worker.start();
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await fx.t.close();
});

const USD = { sourceCurrency: 'USD', destCurrency: 'USD', sourceAmount: '5', autoConfirm: true };

describe('POST /v3/transfers with notifyUrl, end to end', () => {
  it('the receiver gets {"subscriptionId","trigger"} for the implicit DA_ subscription, signed', async () => {
    const created = await transfer(fx.t, partner, null, {
      ...USD,
      source: `account:${partner.accountId}`,
      dest: `user:${userId}`,
      notifyUrl: receiver.url,
    });
    expect(created.status, created.text).toBe(200);
    const [delivery] = await settled(fx.t, `transfer:${created.body.id}`);
    expect(delivery!.status).toBe('DELIVERED');
    const got = receiver.received.find((c) => c.body.includes(created.body.id))!;
    expect(got.body).toBe(
      `{"subscriptionId":"${delivery!.subscription_id}","trigger":"transfer:${created.body.id}"}`,
    );
    expect(verifySignature(secret, got.headers['x-rampart-signature'] as string, got.body)).toBe(true);
    // The implicit subscription is readable by its id, subscribed to the transfer.
    const sub = await signedFetch(fx.t, partner, { path: `/v3/subscriptions/${delivery!.subscription_id}` });
    expect(await sub.json()).toMatchObject({
      id: delivery!.subscription_id,
      subscribed: `transfer:${created.body.id}`,
      notifyTarget: receiver.url,
      failCount: 0,
    });
  });

  it("a subscription to a user is notified of that user's transfer", async () => {
    const response = await signedFetch(fx.t, partner, {
      method: 'POST',
      path: '/v3/subscriptions',
      body: JSON.stringify({ subscribeTo: `user:${userId}`, notifyTarget: receiver.url }),
    });
    const subscription = (await response.json()) as { id: string };
    const created = await transfer(fx.t, partner, userId, { ...USD, dest: `account:${partner.accountId}` });
    expect(created.status, created.text).toBe(200);
    const deliveries = await settled(fx.t, `transfer:${created.body.id}`);
    expect(deliveries.map((d) => [d.subscription_id, d.status])).toEqual([[subscription.id, 'DELIVERED']]);
  });

  it('subscribeTo a transfer of its own is accepted; another partner gets unknownSrn', async () => {
    const created = await transfer(fx.t, partner, null, {
      ...USD,
      source: `account:${partner.accountId}`,
      dest: `user:${userId}`,
    });
    const body = JSON.stringify({ subscribeTo: `transfer:${created.body.id}`, notifyTarget: receiver.url });
    const ok = await signedFetch(fx.t, partner, { method: 'POST', path: '/v3/subscriptions', body });
    expect(ok.status).toBe(200);
    const other = await createPartner(fx.t, { name: 'Other' });
    await expectEnvelopeResponse(
      await signedFetch(fx.t, other, { method: 'POST', path: '/v3/subscriptions', body }),
      400,
      'ValidationException',
      { errorCode: 'validation.unknownSrn', problematicField: 'subscribeTo' },
    );
  });

  it('a preview queues no callback', async () => {
    const preview = await transfer(fx.t, partner, null, {
      ...USD,
      source: `account:${partner.accountId}`,
      dest: `user:${userId}`,
      preview: true,
      notifyUrl: receiver.url,
    });
    expect(preview.status, preview.text).toBe(200);
    expect(await deliveriesOf(fx.t, `transfer:${preview.body.id}`)).toEqual([]);
  });
});
