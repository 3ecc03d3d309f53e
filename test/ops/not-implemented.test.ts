import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';

/**
 * Wyre features Rampart does not offer answer a 501 envelope naming the feature, on every method
 * and sub-path clients call, not a bare 404 (docs/contract.md decision 48).
 */
let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterAll(async () => t.close());

const CALLS: [method: string, path: string, errorCode: string, feature: string][] = [
  ['POST', '/v3/swaps', 'notImplemented.swaps', 'Swaps'],
  ['GET', '/v3/swaps/SW_2222222222A', 'notImplemented.swaps', 'Swaps'],
  ['POST', '/v3/swaps/ipCheck', 'notImplemented.swaps', 'Swaps'],
  ['GET', '/v3/swaps', 'notImplemented.swaps', 'Swaps'],
  ['GET', '/v3/sep-24/transaction/TF_2222222222A', 'notImplemented.sep24', 'SEP-24'],
  ['POST', '/v3/firewall/permit', 'notImplemented.firewallPermit', 'Firewall permits'],
  ['DELETE', '/v3/firewall/permit', 'notImplemented.firewallPermit', 'Firewall permits'],
];

describe('features Rampart does not offer', () => {
  it.each(CALLS)(
    '%s %s answers 501 naming the feature, signed or not',
    async (method, path, code, feature) => {
      const body = method === 'POST' ? JSON.stringify({ ipAddress: '203.0.113.7' }) : undefined;
      const signed = await signedFetch(t, partner, { method, path, ...(body ? { body } : {}) });
      const anonymous = await fetch(`${t.baseUrl}${path}`, {
        method,
        ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
      });
      for (const answer of [signed, anonymous]) {
        expect(answer.status).toBe(501);
        const envelope = (await answer.json()) as Record<string, unknown>;
        expect(envelope).toMatchObject({
          type: 'NotImplementedException',
          errorCode: code,
          transient: false,
          language: 'en',
        });
        expect(String(envelope.message)).toContain(feature);
        expect(String(envelope.exceptionId)).toMatch(/^test_[A-Z0-9]{6}$/);
      }
    },
  );

  it('answers 501 before looking at the body or the credentials', async () => {
    const answer = await fetch(`${t.baseUrl}/v3/swaps?ips=1.1.1.1`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: 'Bearer nothing' },
      body: '{not json',
    });
    expect(answer.status).toBe(501);
    expect(await answer.json()).toMatchObject({ errorCode: 'notImplemented.swaps' });
  });

  it('keeps a path next to them that nobody serves a 404', async () => {
    const answer = await fetch(`${t.baseUrl}/v3/sep-25/transaction/x`);
    expect(answer.status).toBe(404);
  });

  it('leaves them out of the published API document', async () => {
    const spec = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(spec.paths).filter((path) => /swaps|sep-24|firewall/.test(path))).toEqual([]);
  });
});
