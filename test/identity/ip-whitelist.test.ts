import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ipAllowed, parseWhitelist } from '../../src/identity/ip-whitelist.ts';
import type { TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  type AccountView,
  type CreatedKey,
  createKey,
  expectError,
  expectOk,
  rows,
  snapshot,
  startIdentityApp,
} from './support.ts';

let t: TestApp;
let proxied: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  t = await startIdentityApp();
  // Same database, but believing X-Forwarded-For from the loopback "proxy" the tests connect from.
  proxied = await startIdentityApp({ database: t.database, env: { RAMPART_TRUST_PROXY: '127.0.0.1' } });
  partner = await createPartner(t);
});
afterAll(async () => {
  await proxied?.close();
  await t?.close();
});

const accountPath = () => `/v3/accounts/${partner.accountId}`;
const credsOf = (key: CreatedKey): PartnerCredentials => ({
  accountId: partner.accountId,
  apiKey: key.apiKey,
  secretKey: key.secretKey,
});
const whitelisted = async (ipWhitelist: string[]) => credsOf(await createKey(t, partner, { ipWhitelist }));
const forbidden = { errorCode: 'accessDenied.forbidden' };

describe('ipWhitelist validation', () => {
  const invalid = [
    '999.1.1.1',
    '10.0.0.0/33',
    'abc',
    '::1/129',
    '1.2.3.4/',
    '1.2.3.4/8/8',
    '10.0.0.0/-1',
    '',
  ];
  for (const entry of invalid) {
    for (const index of [0, 1]) {
      it(`refuses "${entry}" at index ${index}: 400 naming ipWhitelist[${index}], nothing stored`, async () => {
        const ipWhitelist = index === 0 ? [entry, '127.0.0.1'] : ['127.0.0.1', entry];
        const before = await snapshot(t);
        const response = await bearerFetch(t, partner.secretKey, 'POST', '/v2/apiKeys', {
          desc: 'bad whitelist',
          ipWhitelist,
        });
        const body = await expectError(response, 400, 'ValidationException', {
          problematicField: `ipWhitelist[${index}]`,
        });
        if (entry) expect(body.message).toContain(entry);
        expect(await snapshot(t)).toEqual(before);
      });
    }
  }

  it('refuses a non-array and non-string entries with 400 naming ipWhitelist', async () => {
    const before = await snapshot(t);
    for (const ipWhitelist of ['127.0.0.1', [42], [null]]) {
      const body = await expectError(
        await bearerFetch(t, partner.secretKey, 'POST', '/v2/apiKeys', { ipWhitelist }),
        400,
        'ValidationException',
      );
      expect(body.problematicField).toMatch(/^ipWhitelist/);
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it("accepts '127.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/32' and stores them", async () => {
    const list = ['127.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/32'];
    const key = await createKey(t, partner, { ipWhitelist: list });
    expect(key.ipWhitelist).toEqual(list);
    const [row] = await rows<{ ip_whitelist: string[] }>(
      t,
      'SELECT ip_whitelist FROM api_keys WHERE api_key = $1',
      [key.apiKey],
    );
    expect(row?.ip_whitelist).toEqual(list);
    // 127.0.0.1 is listed: this key works from here.
    await expectOk(await signedFetch(t, credsOf(key), { path: accountPath() }));
  });

  it('unit: parseWhitelist canonicalises, ipAllowed matches plain, CIDR and IPv4-mapped forms', () => {
    expect(parseWhitelist([' 127.0.0.1 ', '2001:DB8::/32', '::FFFF:10.1.2.3'])).toEqual([
      '127.0.0.1',
      '2001:db8::/32',
      '::ffff:10.1.2.3',
    ]);
    expect(ipAllowed([], '203.0.113.9')).toBe(true);
    expect(ipAllowed(['10.0.0.0/8'], '10.200.3.4')).toBe(true);
    expect(ipAllowed(['10.0.0.0/8'], '11.0.0.1')).toBe(false);
    expect(ipAllowed(['10.1.2.3'], '::ffff:10.1.2.3')).toBe(true);
    expect(ipAllowed(['::ffff:10.1.2.3'], '10.1.2.3')).toBe(true);
    expect(ipAllowed(['::ffff:10.1.2.3'], '10.1.2.4')).toBe(false);
    expect(ipAllowed(['2001:db8::/32'], '2001:db8:1::5')).toBe(true);
    expect(ipAllowed(['2001:db8::/32'], '2001:db9::5')).toBe(false);
    expect(ipAllowed(['::1'], '127.0.0.1')).toBe(false);
  });
});

describe('ipWhitelist enforcement (tests connect from 127.0.0.1)', () => {
  it("a key whitelisted for ['10.1.2.3'] is refused here: 403 forbidden by signature and bearer, nothing changed", async () => {
    const creds = await whitelisted(['10.1.2.3']);
    const before = await snapshot(t);
    await expectError(
      await bearerFetch(t, creds.secretKey, 'GET', accountPath()),
      403,
      'AccessDeniedException',
      forbidden,
    );
    await expectError(
      await bearerFetch(t, creds.secretKey, 'POST', '/v2/apiKeys', { desc: 'from the wrong place' }),
      403,
      'AccessDeniedException',
      forbidden,
    );
    expect(await snapshot(t)).toEqual(before);
    await expectError(
      await signedFetch(t, creds, { path: accountPath() }),
      403,
      'AccessDeniedException',
      forbidden,
    );
  });

  for (const list of [['127.0.0.1/32'], ['127.0.0.1'], ['10.1.2.3', '127.0.0.0/8'], ['::ffff:127.0.0.1']]) {
    it(`a key whitelisted for ${JSON.stringify(list)} works from 127.0.0.1`, async () => {
      const creds = await whitelisted(list);
      expect((await expectOk<AccountView>(await signedFetch(t, creds, { path: accountPath() }))).id).toBe(
        partner.accountId,
      );
      await expectOk(await bearerFetch(t, creds.secretKey, 'GET', accountPath()));
    });
  }

  for (const list of [['::1'], ['::ffff:10.1.2.3'], ['127.0.0.2'], ['128.0.0.0/1']]) {
    it(`a key whitelisted for ${JSON.stringify(list)} is refused from 127.0.0.1`, async () => {
      const creds = await whitelisted(list);
      await expectError(
        await signedFetch(t, creds, { path: accountPath() }),
        403,
        'AccessDeniedException',
        forbidden,
      );
    });
  }
});

describe('X-Forwarded-For and RAMPART_TRUST_PROXY', () => {
  const viaProxy = (app: TestApp, creds: PartnerCredentials, forwardedFor: string) =>
    signedFetch(app, creds, { path: accountPath(), headers: { 'x-forwarded-for': forwardedFor } });

  it("with RAMPART_TRUST_PROXY=127.0.0.1, X-Forwarded-For: 10.1.2.3 makes a ['10.1.2.3'] key pass", async () => {
    const creds = await whitelisted(['10.1.2.3']);
    await expectOk(await viaProxy(proxied, creds, '10.1.2.3'));
    await expectOk(await viaProxy(proxied, creds, '::ffff:10.1.2.3'));
    // Only the address the trusted proxy saw counts: a spoofed entry in front of it gains nothing.
    await expectOk(await viaProxy(proxied, creds, '198.51.100.7, 10.1.2.3'));
    await expectError(
      await viaProxy(proxied, creds, '10.1.2.3, 198.51.100.7'),
      403,
      'AccessDeniedException',
      forbidden,
    );
    await expectError(await viaProxy(proxied, creds, '10.1.2.4'), 403, 'AccessDeniedException', forbidden);
  });

  it("behind the trusted proxy, a ['127.0.0.1'] key is refused for a forwarded client 10.1.2.3", async () => {
    const creds = await whitelisted(['127.0.0.1']);
    await expectError(await viaProxy(proxied, creds, '10.1.2.3'), 403, 'AccessDeniedException', forbidden);
    await expectOk(await signedFetch(proxied, creds, { path: accountPath() }));
  });

  it('without RAMPART_TRUST_PROXY the header is ignored', async () => {
    const remote = await whitelisted(['10.1.2.3']);
    await expectError(await viaProxy(t, remote, '10.1.2.3'), 403, 'AccessDeniedException', forbidden);
    const local = await whitelisted(['127.0.0.1']);
    await expectOk(await viaProxy(t, local, '10.1.2.3'));
  });
});

describe('a bearer caller creating a key with ipWhitelist restricts its own token (spec §5.4.6)', () => {
  it('the bearer token is then refused from elsewhere, by bearer and by signature', async () => {
    const token = await createKey(t, partner, { desc: 'device token' });
    const creds = credsOf(token);
    await expectOk(await bearerFetch(t, token.secretKey, 'GET', accountPath()));

    const minted = await expectOk<CreatedKey>(
      await bearerFetch(t, token.secretKey, 'POST', '/v2/apiKeys', {
        desc: 'restricted',
        ipWhitelist: ['10.1.2.3'],
      }),
    );
    expect(minted.ipWhitelist).toEqual(['10.1.2.3']);
    const [row] = await rows<{ ip_whitelist: string[] }>(
      t,
      'SELECT ip_whitelist FROM api_keys WHERE api_key = $1',
      [token.apiKey],
    );
    expect(row?.ip_whitelist).toEqual(['10.1.2.3']);

    await expectError(
      await bearerFetch(t, token.secretKey, 'GET', accountPath()),
      403,
      'AccessDeniedException',
      forbidden,
    );
    await expectError(
      await signedFetch(t, creds, { path: accountPath() }),
      403,
      'AccessDeniedException',
      forbidden,
    );
    // From the whitelisted address (through the trusted proxy) it still works.
    await expectOk(
      await signedFetch(proxied, creds, { path: accountPath(), headers: { 'x-forwarded-for': '10.1.2.3' } }),
    );
  });

  it('a signed caller creating a whitelisted key keeps its own access', async () => {
    const signer = await createKey(t, partner, { desc: 'server key' });
    const creds = credsOf(signer);
    const response = await signedFetch(t, creds, {
      method: 'POST',
      path: '/v2/apiKeys',
      body: JSON.stringify({ desc: 'restricted', ipWhitelist: ['10.1.2.3'] }),
    });
    expect((await expectOk<CreatedKey>(response)).ipWhitelist).toEqual(['10.1.2.3']);
    await expectOk(await signedFetch(t, creds, { path: accountPath() }));
    await expectOk(await bearerFetch(t, signer.secretKey, 'GET', accountPath()));
  });

  it('a bearer caller creating a key with an empty whitelist stays unrestricted', async () => {
    const token = await createKey(t, partner, { desc: 'open token' });
    await expectOk(
      await bearerFetch(t, token.secretKey, 'POST', '/v2/apiKeys', { desc: 'open', ipWhitelist: [] }),
    );
    await expectOk(await bearerFetch(t, token.secretKey, 'GET', accountPath()));
  });
});
