import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstEntryOutside } from '../../src/identity/ip-whitelist.ts';
import type { TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  type CreatedKey,
  createKey,
  createSubaccount,
  expectError,
  expectOk,
  rows,
  snapshot,
  startIdentityApp,
} from './support.ts';

// A new key's whitelist must lie within its creator's: an IP-whitelisted key cannot mint a key
// that works from anywhere, or from addresses it may not use itself. Tests connect from 127.0.0.1.
let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  t = await startIdentityApp();
  partner = await createPartner(t);
});
afterAll(async () => t?.close());

const credsOf = (key: CreatedKey): PartnerCredentials => ({
  accountId: partner.accountId,
  apiKey: key.apiKey,
  secretKey: key.secretKey,
});
const whitelistOf = async (apiKey: string) =>
  (
    await rows<{ ip_whitelist: string[] }>(t, 'SELECT ip_whitelist FROM api_keys WHERE api_key = $1', [
      apiKey,
    ])
  )[0]?.ip_whitelist;

describe('firstEntryOutside (CIDR containment)', () => {
  const cases: [string[], string[], number][] = [
    [['10.1.2.3'], [], -1],
    [[], ['10.0.0.0/8'], -1],
    [['10.1.2.3'], ['10.0.0.0/8'], -1],
    [['10.1.0.0/16', '10.255.255.255/32'], ['10.0.0.0/8'], -1],
    [['10.200.0.0/8'], ['10.0.0.0/8'], -1],
    [['10.0.0.0/7'], ['10.0.0.0/8'], 0],
    [['10.1.2.3', '11.0.0.1'], ['10.0.0.0/8'], 1],
    [['127.0.0.1'], ['127.0.0.1'], -1],
    [['127.0.0.1/32'], ['127.0.0.1'], -1],
    [['127.0.0.0/31'], ['127.0.0.1'], 0],
    [['192.168.1.0/24'], ['10.0.0.0/8', '192.168.0.0/16'], -1],
    [['2001:db8:1::/48', '2001:db8::5'], ['2001:db8::/32'], -1],
    [['2001:db9::/48'], ['2001:db8::/32'], 0],
    [['2001:db8::/31'], ['2001:db8::/32'], 0],
    [['::1'], ['127.0.0.0/8'], 0],
    [['10.1.2.3'], ['::/0'], 0],
    [['::ffff:10.1.2.3'], ['10.0.0.0/8'], 0],
    [['10.1.2.3'], ['0.0.0.0/0'], -1],
  ];
  for (const [inner, outer, expected] of cases) {
    it(`${JSON.stringify(inner)} within ${JSON.stringify(outer)}: ${expected}`, () => {
      expect(firstEntryOutside(inner, outer)).toBe(expected);
    });
  }
});

describe('POST /v2/apiKeys by a whitelisted key', () => {
  let creator: CreatedKey;
  beforeAll(async () => {
    creator = await createKey(t, partner, { desc: 'office', ipWhitelist: ['127.0.0.0/8', '2001:db8::/32'] });
  });

  const refusals: [string, unknown[] | undefined, string][] = [
    ['no whitelist', [], 'ipWhitelist'],
    ['the whitelist left out', undefined, 'ipWhitelist'],
    ['an address outside', ['127.0.0.1', '10.1.2.3'], 'ipWhitelist[1]'],
    ['a wider range', ['126.0.0.0/7'], 'ipWhitelist[0]'],
    ['an IPv6 range outside', ['2001:db9::/48'], 'ipWhitelist[0]'],
  ];
  for (const [name, ipWhitelist, field] of refusals) {
    for (const scheme of ['signature', 'bearer'] as const) {
      it(`refuses ${name} (${scheme}): 403 forbidden naming ${field}, nothing changed`, async () => {
        const before = await snapshot(t, ['signature_replays']);
        const body = JSON.stringify({ desc: 'escape', ...(ipWhitelist ? { ipWhitelist } : {}) });
        const response =
          scheme === 'signature'
            ? await signedFetch(t, credsOf(creator), { method: 'POST', path: '/v2/apiKeys', body })
            : await bearerFetch(t, creator.secretKey, 'POST', '/v2/apiKeys', JSON.parse(body));
        const envelope = await expectError(response, 403, 'AccessDeniedException', {
          errorCode: 'accessDenied.forbidden',
          problematicField: field,
        });
        expect(envelope.message).toMatch(/whitelist/);
        expect(await snapshot(t, ['signature_replays'])).toEqual(before);
        // The bearer's own whitelist is untouched too.
        expect(await whitelistOf(creator.apiKey)).toEqual(['127.0.0.0/8', '2001:db8::/32']);
      });
    }
  }

  it('accepts a whitelist within its own, IPv4 and IPv6', async () => {
    const key = await expectOk<CreatedKey>(
      await signedFetch(t, credsOf(creator), {
        method: 'POST',
        path: '/v2/apiKeys',
        body: JSON.stringify({
          desc: 'narrower',
          ipWhitelist: ['127.0.0.1', '127.1.0.0/16', '2001:db8:1::/48'],
        }),
      }),
    );
    expect(key.ipWhitelist).toEqual(['127.0.0.1', '127.1.0.0/16', '2001:db8:1::/48']);
    expect(await whitelistOf(key.apiKey)).toEqual(key.ipWhitelist);
    expect(await whitelistOf(creator.apiKey)).toEqual(['127.0.0.0/8', '2001:db8::/32']);
  });

  it('a bearer token narrows itself within its whitelist, and may not widen itself', async () => {
    const token = await createKey(t, partner, { desc: 'device', ipWhitelist: ['127.0.0.0/8'] });
    await expectError(
      await bearerFetch(t, token.secretKey, 'POST', '/v2/apiKeys', { ipWhitelist: ['0.0.0.0/0'] }),
      403,
      'AccessDeniedException',
      { problematicField: 'ipWhitelist[0]' },
    );
    expect(await whitelistOf(token.apiKey)).toEqual(['127.0.0.0/8']);
    await expectOk(
      await bearerFetch(t, token.secretKey, 'POST', '/v2/apiKeys', { ipWhitelist: ['127.0.0.1'] }),
    );
    expect(await whitelistOf(token.apiKey)).toEqual(['127.0.0.1']);
  });

  it('a whitelisted master key masquerading as its sub-account is bound the same way', async () => {
    const sub = await createSubaccount(t, partner);
    const before = await snapshot(t, ['signature_replays', 'access_audit']);
    await expectError(
      await signedFetch(t, credsOf(creator), {
        method: 'POST',
        path: `/v2/apiKeys?masqueradeAs=${sub.id}`,
        body: JSON.stringify({ desc: 'sub, anywhere' }),
      }),
      403,
      'AccessDeniedException',
      { problematicField: 'ipWhitelist' },
    );
    expect(await snapshot(t, ['signature_replays', 'access_audit'])).toEqual(before);
    const key = await createKey(t, credsOf(creator), { ipWhitelist: ['127.0.0.1'] }, sub.id);
    expect(key.owner).toBe(`account:${sub.id}`);
  });

  it('a key without a whitelist still creates keys with any whitelist or none', async () => {
    expect((await createKey(t, partner, { ipWhitelist: [] })).ipWhitelist).toEqual([]);
    expect((await createKey(t, partner, { ipWhitelist: ['203.0.113.0/24'] })).ipWhitelist).toEqual([
      '203.0.113.0/24',
    ]);
  });
});
