import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FeedRateSource } from '../../src/pricing/feed-source.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { lockedBody, postSigned, snapshot } from '../orders/support.ts';

/** A local price endpoint whose behaviour each test sets. */
let mode: 'ok' | 'error' | 'garbage' | 'hang' = 'ok';
let body = JSON.stringify({ BTC: 61000.5, ETH: '3100', EUR: { USD: '1.1' }, SHIB: '0.00001' });
const hung: http.ServerResponse[] = [];
let feedUrl = '';
const server = http.createServer((_request, response) => {
  if (mode === 'hang') return void hung.push(response);
  if (mode === 'error') return void response.writeHead(500).end('{"error":"down"}');
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(mode === 'garbage' ? '{"BTC": "sixty thousand"' : body);
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prices`;
});
afterAll(async () => {
  for (const response of hung) response.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('FeedRateSource', () => {
  let nowMs = 1_000_000;
  const source = () =>
    new FeedRateSource(
      { url: feedUrl, intervalMs: 1000, timeoutMs: 1500, staleAfterMs: 30_000 },
      () => nowMs,
    );

  it('refuses to quote before its first good answer', async () => {
    mode = 'error';
    const feed = source();
    await feed.poll();
    expect(feed.lastError).toBe('feed answered 500');
    await expect(feed.current()).rejects.toMatchObject({
      type: 'ServiceUnavailableException',
      status: 503,
      transient: true,
    });
  });

  it('reads prices exactly, skips currencies it does not sell, and keeps them through failed polls', async () => {
    mode = 'ok';
    const feed = source();
    await feed.poll();
    const first = await feed.current();
    expect(first.source).toBe('feed');
    expect(first.usdPrices.get('BTC')?.toFixed()).toBe('61000.5');
    expect(first.usdPrices.get('EUR')?.toFixed()).toBe('1.1');
    expect(first.usdPrices.has('SHIB')).toBe(false);
    for (const failure of ['error', 'garbage', 'hang'] as const) {
      mode = failure;
      await feed.poll();
      expect(feed.lastError).toBeDefined();
      expect(await feed.current()).toBe(first);
    }
    expect(feed.lastError).toBe('timeout');
  });

  it('marks prices stale after the configured age and recovers with the next good poll', async () => {
    mode = 'ok';
    const feed = source();
    await feed.poll();
    nowMs += 30_000;
    await expect(feed.current()).resolves.toBeDefined();
    nowMs += 1;
    await expect(feed.current()).rejects.toMatchObject({ errorCode: 'rates.stale', transient: true });
    await feed.poll();
    await expect(feed.current()).resolves.toMatchObject({ asOfMs: nowMs });
  });
});

describe('an app quoting from the feed (RAMPART_RATE_SOURCE=feed)', () => {
  let t: TestApp;
  let partner: PartnerCredentials;

  beforeAll(async () => {
    mode = 'ok';
    body = JSON.stringify({ BTC: '40000', ETH: '2000', USDC: '1' });
    t = await startTestApp({
      env: {
        RAMPART_RATE_SOURCE: 'feed',
        RAMPART_RATE_FEED_URL: feedUrl,
        RAMPART_RATE_FEED_INTERVAL_MS: '100',
        RAMPART_RATE_FEED_TIMEOUT_MS: '200',
        RAMPART_RATE_STALE_AFTER_MS: '1000',
      },
    });
    partner = await createPartner(t);
  });
  afterAll(async () => t?.close());

  it('serves the feed’s prices, then refuses with a transient 503 once they are stale, storing nothing', async () => {
    await vi.waitFor(async () => {
      const response = await fetch(`${t.baseUrl}/v3/rates?as=MULTIPLIER`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as Record<string, number>).BTCUSD).toBe(40000);
    });
    const quote = await postSigned(t, partner, '/v3/orders/quote/partner', {
      sourceAmount: '100',
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
    });
    expect(await quote.json()).toMatchObject({ exchangeRate: 0.0005 });

    mode = 'error';
    await vi.waitFor(
      async () => {
        const response = await fetch(`${t.baseUrl}/v3/rates`);
        await expectEnvelopeResponse(response, 503, 'ServiceUnavailableException', {
          errorCode: 'rates.stale',
          transient: true,
        });
      },
      { timeout: 10_000, interval: 100 },
    );
    const before = await snapshot(t);
    const reserve = await postSigned(t, partner, '/v3/orders/reserve', lockedBody(partner));
    await expectEnvelopeResponse(reserve, 503, 'ServiceUnavailableException', { transient: true });
    expect(await snapshot(t)).toEqual(before);

    mode = 'ok';
    await vi.waitFor(async () => expect((await fetch(`${t.baseUrl}/v3/rates`)).status).toBe(200), {
      timeout: 10_000,
      interval: 100,
    });
  });
});
