import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskUrl } from '../../src/platform/logger.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const SECRETS = {
  bearer: 'secret-value-xyz',
  signature: `deadbeef${'c0ffee'.repeat(9)}`,
  apiKeyHeader: 'AK-HEADERKEY-SECRET99',
  cookie: 'session=COOKIESECRET77',
  querySecret: 'SUPERSECRET123QUERY',
  encodedQuerySecret: 'SUPERSECRET456ENCODED',
  bodySecretKey: 'SK-BODYSECRET-2N92PBW3-XNQPM46V-3LLWGARL',
  cvv: '987',
  cardNumber: '4111111111111111',
  nestedCardNumber: '5555555555554444',
  nestedCvv: '6543',
  debitCardNumber: '4000056655665556',
  malformedJsonSecret: 'SK-MALFORMED-LEAKME',
};

let t: TestApp;
const lines: string[] = [];

beforeAll(async () => {
  t = await startTestApp({
    env: { LOG_LEVEL: 'trace' },
    logStream: { write: (line: string) => void lines.push(line) },
    loopbackPublicUrl: false,
    // A handler that logs what it was sent, as handlers will when debugging: redaction must hold.
    extend: (app) => {
      app.post('/probe/log-body', async (request) => {
        request.log.info({ body: request.body }, 'probe received');
        return { ok: true };
      });
      app.post('/probe/boom', async () => {
        throw new Error('database exploded');
      });
    },
  });
});
afterAll(async () => t?.close());

const log = () => lines.join('');

describe('log redaction', () => {
  it('keeps credentials, secret keys and card data out of every log line', async () => {
    const statuses: number[] = [];
    const send = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${t.baseUrl}${path}`, init);
      await response.text();
      statuses.push(response.status);
      return response;
    };

    await send('/operator/v1/sandbox/clock', { headers: { authorization: `Bearer ${SECRETS.bearer}` } });
    await send('/healthz', {
      headers: {
        'x-api-signature': SECRETS.signature,
        'x-api-key': SECRETS.apiKeyHeader,
        cookie: SECRETS.cookie,
      },
    });
    await send(`/healthz?secretKey=${SECRETS.querySecret}`);
    await send(`/healthz?timestamp=1&secret%4Bey=${SECRETS.encodedQuerySecret}`);
    const bodyResponse = await send('/probe/log-body', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRETS.bearer}` },
      body: JSON.stringify({
        secretKey: SECRETS.bodySecretKey,
        cvv: SECRETS.cvv,
        number: SECRETS.cardNumber,
        card: { number: SECRETS.nestedCardNumber, cvv: SECRETS.nestedCvv },
        debitCard: { number: SECRETS.debitCardNumber, year: '2030' },
        amount: 10,
      }),
    });
    await send('/operator/v1/sandbox/clock', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRETS.bearer}` },
      body: `{"secretKey":"${SECRETS.malformedJsonSecret}"`,
    });
    const fault = await fetch(`${t.baseUrl}/probe/boom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secretKey: SECRETS.bodySecretKey, cvv: SECRETS.cvv }),
    });
    expect(fault.status).toBe(500);
    const { exceptionId } = (await fault.json()) as { exceptionId: string };

    expect(bodyResponse.status).toBe(200);
    expect(statuses).toEqual([401, 200, 400, 400, 200, 401]);

    const text = log();
    // Something was logged for these requests, and redaction (not silence) kept the values out.
    expect(text).toContain('probe received');
    expect(text).toContain('[REDACTED]');
    expect(text).toContain('/healthz');
    expect(text).toContain(exceptionId);
    expect(text).toContain('database exploded'); // the fault's details are in the log, under its exceptionId
    const faultLine = lines.find((line) => line.includes(exceptionId) && line.includes('database exploded'));
    expect(faultLine).toBeDefined();
    for (const [name, value] of Object.entries(SECRETS)) {
      // A CVV is a few digits that timings and request ids can contain by chance: look for it as a JSON string.
      const needle = value.length < 6 ? `"${value}"` : value;
      expect(text.includes(needle), `${name} leaked into the log`).toBe(false);
    }
    // Every line is JSON (no stray text from a pretty printer or a console.log).
    for (const line of text.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe('maskUrl', () => {
  it('masks secret query values however the name is written, and leaves the rest', () => {
    expect(maskUrl('/v2/x?secretKey=abc&timestamp=1')).toBe('/v2/x?secretKey=[REDACTED]&timestamp=1');
    expect(maskUrl('/v2/x?timestamp=1&secretkey=abc')).not.toContain('abc');
    expect(maskUrl('/v2/x?secret%4Bey=abc')).not.toContain('abc');
    expect(maskUrl('/v2/x?token=abc&cvv=123&cardNumber=4111')).not.toMatch(/abc|123|4111/);
    expect(maskUrl('/v3/orders/WO_123?format=json')).toBe('/v3/orders/WO_123?format=json');
    expect(maskUrl('/healthz')).toBe('/healthz');
  });

  const back = '/purchase?accountId=AC_1&reservation=R1&order=WO_1&orderToken=ORDERTOKEN123';
  const once = encodeURIComponent(back);
  it.each([
    ['/onboarding/ONBOARDTOKEN1', '/onboarding/[REDACTED]'],
    ['/onboarding/ONBOARDTOKEN1?x=1', '/onboarding/[REDACTED]?x=1'],
    ['/%6Fnboarding/ONBOARDTOKEN1', '/%6Fnboarding/[REDACTED]'],
    ['/api/onboarding/ONBOARDTOKEN1', '/api/onboarding/[REDACTED]'],
    ['/sandbox/3ds/WO_1/THREEDSTOKEN1', '/sandbox/3ds/WO_1/[REDACTED]'],
    [
      `/sandbox/3ds/WO_1/THREEDSTOKEN1?returnUrl=${once}`,
      `/sandbox/3ds/WO_1/[REDACTED]?returnUrl=${encodeURIComponent(back.replace('ORDERTOKEN123', '[REDACTED]'))}`,
    ],
    [
      `/sandbox/3ds/WO_1/THREEDSTOKEN1?returnUrl=${encodeURIComponent(once)}`,
      `/sandbox/3ds/WO_1/[REDACTED]?returnUrl=${encodeURIComponent(encodeURIComponent(back.replace('ORDERTOKEN123', '[REDACTED]')))}`,
    ],
    [
      `/x?next=${encodeURIComponent('https://pay.example/onboarding/ONBOARDTOKEN1')}`,
      `/x?next=${encodeURIComponent('https://pay.example/onboarding/[REDACTED]')}`,
    ],
    [
      `/x?back=${encodeURIComponent('a=1&orderToken=ORDERTOKEN123')}`,
      `/x?back=${encodeURIComponent('a=1&orderToken=[REDACTED]')}`,
    ],
    [back, back.replace('ORDERTOKEN123', '[REDACTED]')],
    [
      '/purchase?accountId=AC_1&redirectUrl=https%3A%2F%2Fm.example%2Fdone%3Fsession%3D42',
      '/purchase?accountId=AC_1&redirectUrl=https%3A%2F%2Fm.example%2Fdone%3Fsession%3D42',
    ],
    ['/onboardingx/abc', '/onboardingx/abc'],
  ])('masks capability tokens in paths and nested URLs: %s', (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });
});
