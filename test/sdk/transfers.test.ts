import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CallbackSignatureError,
  NotFoundException,
  RampartClient,
  TransferException,
  verifyCallback,
} from '../../sdk/src/index.js';
import type { DeliveryWorker } from '../../src/callbacks/worker.ts';
import { type Receiver, startReceiver, testWorker } from '../callbacks/support.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner } from '../helpers/partner.ts';
import { credit } from '../transfers/support.ts';

/**
 * Transfers, subscriptions and callbacks through the SDK against the real server, ending where
 * a partner's receiver ends: a callback whose X-Rampart-Signature verifyCallback accepts.
 */
let t: TestApp;
let client: RampartClient;
let accountId: string;
let webhookSecret: string;
let receiver: Receiver;
let worker: DeliveryWorker;

beforeAll(async () => {
  t = await startTestApp();
  const partner = await createPartner(t);
  accountId = partner.accountId;
  webhookSecret = partner.webhookSecret;
  client = new RampartClient({
    baseUrl: t.baseUrl,
    auth: { type: 'signature', apiKey: partner.apiKey, secretKey: partner.secretKey },
  });
  await credit(t, `account:${accountId}`, 'USD', '1000.25');
  receiver = await startReceiver('accept');
  worker = testWorker(t);
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await t?.close();
});

describe('SDK transfers and callbacks against the server', () => {
  it('reads the signing secret the operator handed out', async () => {
    expect(await client.subscriptions.signingSecret()).toEqual({ webhookSecret });
  });

  it('previews, creates, confirms, reads and lists a transfer, with exact amounts', async () => {
    const sub = await client.accounts.create({ country: 'US', subaccount: true });
    const request = {
      source: `account:${accountId}`,
      sourceCurrency: 'USD',
      sourceAmount: '10.05',
      dest: `account:${sub.id}`,
      destCurrency: 'USD',
      message: 'sdk test',
    };
    const preview = await client.transfers.create({ ...request, preview: true });
    expect(preview.status).toBe('PREVIEW');
    const created = await client.transfers.create(request);
    expect(created).toMatchObject({ status: 'UNCONFIRMED', sourceAmount: '10.05', destAmount: '10.05' });
    const confirmed = await client.transfers.confirm(created.id);
    expect(['PENDING', 'COMPLETED']).toContain(confirmed.status);
    expect((await client.transfers.get(created.id)).id).toBe(created.id);
    const page = await client.transfers.list({ limit: 10 });
    expect(page.data.map((transfer) => transfer.id)).toContain(created.id);
    expect(typeof page.recordsTotal).toBe('number');
    const again = await client.transfers.confirm(created.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(TransferException);
    expect(again).toMatchObject({ status: 400 });
  });

  it('delivers a callback for notifyUrl that verifyCallback accepts, and refuses once tampered', async () => {
    const sub = await client.accounts.create({ country: 'US', subaccount: true });
    const transfer = await client.transfers.create({
      sourceCurrency: 'USD',
      sourceAmount: '1',
      dest: `account:${sub.id}`,
      autoConfirm: true,
      notifyUrl: receiver.url,
    });
    const callback = await receiver.nth(1);
    const header = callback.headers['x-rampart-signature'] as string | undefined;
    const payload = verifyCallback(callback.body, header, webhookSecret);
    expect(payload.trigger).toBe(`transfer:${transfer.id}`);
    expect(payload.subscriptionId).toMatch(/^DA_/);
    expect((await client.subscriptions.get(payload.subscriptionId)).subscribed).toBe(
      `transfer:${transfer.id}`,
    );
    expect(() => verifyCallback(`${callback.body} `, header, webhookSecret)).toThrow(CallbackSignatureError);
    expect(() => verifyCallback(callback.body, header, `${webhookSecret}x`)).toThrow(CallbackSignatureError);
  });

  it('creates, lists, reads and deletes a subscription', async () => {
    const created = await client.subscriptions.create({
      subscribeTo: `account:${accountId}`,
      notifyTarget: receiver.url,
    });
    expect(created).toMatchObject({ subscribed: `account:${accountId}`, failCount: 0 });
    expect((await client.subscriptions.list()).data.map((s) => s.id)).toContain(created.id);
    expect((await client.subscriptions.delete(created.id)).id).toBe(created.id);
    await expect(client.subscriptions.get(created.id)).rejects.toBeInstanceOf(NotFoundException);
  });
});
