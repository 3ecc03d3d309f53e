import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  countRows,
  createKey,
  expectError,
  expectOk,
  sessionSecret,
  startIdentityApp,
  tcpReachable,
} from './support.ts';

const redisUp = await tcpReachable('127.0.0.1', 6379);

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps.reverse()) await app.close();
});

async function start(env: Record<string, string>, database?: TestApp['database']) {
  const app = await startIdentityApp({ env, ...(database ? { database } : {}) });
  apps.push(app);
  return app;
}

/** Splits answers into 200s and 429s; anything else fails the test. Checks every 429's envelope. */
async function tally(responses: Response[]) {
  let ok = 0;
  let limited = 0;
  for (const response of responses) {
    if (response.status === 429) {
      limited++;
      const retryAfter = response.headers.get('retry-after');
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      const body = await expectError(response, 429, 'RateLimitException', {
        errorCode: 'rateLimit.exceeded',
      });
      expect(body.transient).toBe(true);
    } else {
      await expectOk(response);
      ok++;
    }
  }
  return { ok, limited };
}

describe('per-key limit (RAMPART_RATE_LIMIT_PER_KEY=3)', () => {
  let t: TestApp;
  let partner: PartnerCredentials;
  beforeAll(async () => {
    t = await start({ RAMPART_RATE_LIMIT_PER_KEY: '3' });
    partner = await createPartner(t);
  });

  it('6 parallel signed requests with distinct timestamps: 3 pass, 3 get 429 with Retry-After', async () => {
    const key = await createKey(t, partner, { desc: 'burst' }); // 1 of the partner key's 3
    const creds = { accountId: partner.accountId, apiKey: key.apiKey, secretKey: key.secretKey };
    const now = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        signedFetch(t, creds, { path: `/v3/accounts/${partner.accountId}`, timestamp: now - i }),
      ),
    );
    expect(await tally(responses)).toEqual({ ok: 3, limited: 3 });
    // The same key by bearer is the same counter.
    await expectError(
      await bearerFetch(t, key.secretKey, 'GET', `/v3/accounts/${partner.accountId}`),
      429,
      'RateLimitException',
    );
    // Another key from the same IP has its own counter.
    await expectOk(await signedFetch(t, partner, { path: `/v3/accounts/${partner.accountId}` }));
  });

  it('limited creating requests create nothing: 6 parallel key creations make exactly 3 keys', async () => {
    const fresh = await createPartner(t, { name: 'Fresh' });
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        bearerFetch(t, fresh.secretKey, 'POST', '/v2/apiKeys', { desc: `parallel ${i}` }),
      ),
    );
    expect(await tally(responses)).toEqual({ ok: 3, limited: 3 });
    expect(await countRows(t, 'SELECT 1 FROM api_keys WHERE created_by = $1', [fresh.apiKey])).toBe(3);
  });
});

describe('per-IP limit (RAMPART_RATE_LIMIT_PER_IP=5)', () => {
  it('8 parallel anonymous session registrations: 5 pass, 3 get 429 and store nothing', async () => {
    const t = await start({ RAMPART_RATE_LIMIT_PER_IP: '5' });
    const sessionsBefore = await countRows(t, "SELECT 1 FROM api_keys WHERE origin = 'session'");
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${t.baseUrl}/v2/sessions/auth/key?secretKey=${sessionSecret()}`, { method: 'POST' }),
      ),
    );
    expect(await tally(responses)).toEqual({ ok: 5, limited: 3 });
    expect(await countRows(t, "SELECT 1 FROM api_keys WHERE origin = 'session'")).toBe(sessionsBefore + 5);
    // The address is now limited everywhere, credentials or not.
    await expectError(await fetch(`${t.baseUrl}/healthz`), 429, 'RateLimitException');
    await expectError(
      await fetch(`${t.baseUrl}/v3/accounts/AC_ZZZZ2222222`, { headers: { authorization: 'Bearer x' } }),
      429,
      'RateLimitException',
    );
  });
});

describe('shared counters through Redis (REDIS_URL)', () => {
  it.skipIf(!redisUp)('two app instances share the per-key counter', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', RAMPART_RATE_LIMIT_PER_KEY: '3' };
    const first = await start(env);
    const second = await start(env, first.database);
    const partner = await createPartner(first);
    const get = (app: TestApp) => signedFetch(app, partner, { path: `/v3/accounts/${partner.accountId}` });
    await expectOk(await get(first));
    await expectOk(await get(second));
    await expectOk(await get(first));
    // In-process counters would let each instance allow 3; the shared one has none left.
    await expectError(await get(second), 429, 'RateLimitException');
    await expectError(await get(first), 429, 'RateLimitException');
    // Another key still has its own budget on both.
    const other = await createPartner(first, { name: 'Other' });
    await expectOk(await signedFetch(second, other, { path: `/v3/accounts/${other.accountId}` }));
  });
});
