import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/callbacks/worker.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  type Behaviour,
  queueTransferCallbacks,
  type Receiver,
  settled,
  startReceiver,
  testWorker,
} from './support.ts';

/**
 * What a partner reads about a failed callback (a subscription's `failure`) is a coarse outcome,
 * never the error text: in sandbox a partner may point callbacks at the server's own loopback,
 * and `ECONNREFUSED` / `socket hang up` / `HTTP 401` port after port would map its services.
 * The operator API keeps the details.
 */

let t: TestApp;
let partner: PartnerCredentials;
const receivers: Receiver[] = [];
const workers: DeliveryWorker[] = [];

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterEach(async () => {
  for (const r of receivers.splice(0)) r.release();
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => t?.close());

async function receiver(behaviour: Behaviour): Promise<Receiver> {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  return r;
}

/** A loopback port nothing listens on (a receiver that was closed at once). */
async function closedPortUrl(): Promise<string> {
  const r = await startReceiver('accept');
  await r.close();
  return r.url;
}

async function subscribe(notifyTarget: string): Promise<string> {
  const response = await signedFetch(t, partner, {
    method: 'POST',
    path: '/v3/subscriptions',
    body: JSON.stringify({ subscribeTo: `account:${partner.accountId}`, notifyTarget }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

/**
 * Subscribes `url` through the partner API, sends it one callback, and answers what the partner
 * reads (the subscription, alone and listed) and what the operator reads (the delivery).
 */
async function outcomeOf(url: string, timeoutMs?: number) {
  const subscriptionId = await subscribe(url);
  await queueTransferCallbacks(t, partner.accountId);
  const worker = testWorker(t, timeoutMs === undefined ? {} : { timeoutMs });
  workers.push(worker);
  worker.start();
  // A subscription to an account is called with the account as its trigger.
  const deliveries = await settled(t, `account:${partner.accountId}`);
  await worker.stop();
  const delivery = deliveries.find((d) => d.subscription_id === subscriptionId)!;
  const one = await signedFetch(t, partner, { path: `/v3/subscriptions/${subscriptionId}` });
  const listed = await signedFetch(t, partner, { path: '/v3/subscriptions' });
  const operatorView = await fetch(`${t.baseUrl}/operator/v1/callbacks/${delivery.id}`, {
    headers: { authorization: operatorHeaders().authorization ?? '' },
  });
  const partnerText = `${await one.clone().text()}${await listed.text()}`;
  const subscription = (await one.json()) as { failure: string | null; failCount: number };
  const operator = (await operatorView.json()) as { lastError: string | null };
  await signedFetch(t, partner, { method: 'DELETE', path: `/v3/subscriptions/${subscriptionId}` });
  return { subscription, partnerText, operator };
}

describe("a subscription's failure is a coarse outcome", () => {
  it('a closed loopback port: `unreachable`, while the operator sees ECONNREFUSED', async () => {
    const { subscription, partnerText, operator } = await outcomeOf(await closedPortUrl());
    expect(subscription).toMatchObject({ failure: 'unreachable', failCount: 1 });
    expect(partnerText).not.toMatch(/ECONN/);
    expect(operator.lastError).toMatch(/ECONNREFUSED/);
  });

  it('a receiver that drops the connection: `unreachable`, never "socket hang up"', async () => {
    const { subscription, partnerText, operator } = await outcomeOf((await receiver('destroy')).url);
    expect(subscription.failure).toBe('unreachable');
    expect(partnerText).not.toMatch(/hang up|ECONNRESET/);
    expect(operator.lastError).toMatch(/socket hang up|ECONNRESET/);
  });

  it('a receiver answering 500: `refusedByReceiver (HTTP 500)`', async () => {
    const { subscription, operator } = await outcomeOf((await receiver('fail500')).url);
    expect(subscription.failure).toBe('refusedByReceiver (HTTP 500)');
    expect(operator.lastError).toBe('HTTP 500');
  });

  it('a redirect, which is not followed: `refusedByReceiver (HTTP 302)`', async () => {
    const { subscription, operator } = await outcomeOf((await receiver('redirect')).url);
    expect(subscription.failure).toBe('refusedByReceiver (HTTP 302)');
    expect(operator.lastError).toBe('HTTP 302 (redirects are not followed)');
  });

  it('a receiver that never answers: `timedOut`', async () => {
    const { subscription, partnerText, operator } = await outcomeOf((await receiver('hang')).url, 100);
    expect(subscription.failure).toBe('timedOut');
    expect(partnerText).not.toContain('100 ms');
    expect(operator.lastError).toBe('timed out after 100 ms');
  });

  it('a receiver answering 200: no failure', async () => {
    const { subscription } = await outcomeOf((await receiver('accept')).url);
    expect(subscription).toMatchObject({ failure: null, failCount: 0 });
  });
});
