import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature, signatureCandidates, signatureMatches } from '../../src/identity/signature.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, sign, signedFetch } from '../helpers/partner.ts';
import {
  type AccountView,
  createSubaccount,
  expectError,
  expectOk,
  rawSigned,
  replayRecorded,
  sameAnswer,
  snapshot,
  startIdentityApp,
} from './support.ts';

// wyre-api-facts §3: key = the JAVA client's test secret, HMAC-SHA256 hex over URL + body.
const JAVA_SECRET = 'SK-X6ABP7DG-2N92PBW3-XNQPM46V-3LLWGARL';
const TRANSFER_BODY =
  '{"source":"account:AC_YNWFWXDW3AG","sourceCurrency":"USD","sourceAmount":"200","dest":"paymentmethod:PA_L64RP4JB73L","destCurrency":"USD","message":"Sending the user payment method"}';
const VECTORS = [
  {
    base: 'https://api.testwyre.com',
    path: '/account?timestamp=1536518677854',
    body: '',
    signature: '98b3573eb8faceb14d86a297fe18419f1fbb8795e811f866c536db7449ed1581',
  },
  {
    base: 'https://api.testwyre.com',
    path: '/v3/transfers?timestamp=1426252182534',
    body: TRANSFER_BODY,
    signature: '44469daadb67daca770b344019b3db3eb6709801451cfe473e21b59d6862421d',
  },
  {
    base: 'https://api.sendwyre.com',
    path: '/v3/rates?timestamp=1426252182534&format=json',
    body: '',
    signature: '6e89ae8e274925afc7f5be17a708149b1ed24f5fa96c58eea759686c93aa1a71',
  },
  {
    base: 'https://api.testwyre.com',
    path: '/v3/accounts/AC_XXXXXXXX?masqueradeAs=AC_XXXXXXXX&timestamp=1426252182534',
    body: '',
    signature: '51b6b4c5c8e6d67d4713eba9faccfcc6bc55eb252461c77387570d979f69b821',
  },
];

const flipLastNibble = (hex: string) => `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`;

describe('signature.ts against the Wyre test vectors', () => {
  for (const vector of VECTORS) {
    it(`computes and accepts ${vector.base}${vector.path}${vector.body ? ' + body' : ''}`, () => {
      const body = vector.body ? Buffer.from(vector.body, 'utf8') : undefined;
      const url = `${vector.base}${vector.path}`;
      expect(computeSignature(JAVA_SECRET, url, body).toString('hex')).toBe(vector.signature);
      expect(computeSignature(Buffer.from(JAVA_SECRET), url, body).toString('hex')).toBe(vector.signature);

      const secret = Buffer.from(JAVA_SECRET);
      // As received behind a proxy: path + query only; the configured base URL makes it verify.
      const candidates = signatureCandidates(['https://other.example', vector.base], vector.path);
      expect(candidates).toContain(url);
      expect(candidates).toContain(vector.path);
      expect(signatureMatches(secret, vector.signature, candidates, body)).toBe(true);
      expect(signatureMatches(secret, vector.signature.toUpperCase(), candidates, body)).toBe(true);
      expect(signatureMatches(secret, flipLastNibble(vector.signature), candidates, body)).toBe(false);
      // Without its base URL configured, a URL-signed request does not verify path-only.
      expect(signatureMatches(secret, vector.signature, signatureCandidates([], vector.path), body)).toBe(
        false,
      );
      expect(signatureMatches(Buffer.from(`${JAVA_SECRET}x`), vector.signature, candidates, body)).toBe(
        false,
      );
      if (body) {
        // The body is part of the MAC: one byte more and it no longer matches.
        const longer = Buffer.concat([body, Buffer.from(' ')]);
        expect(signatureMatches(secret, vector.signature, candidates, longer)).toBe(false);
      }
    });
  }
});

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;
let sub: AccountView;
const extraApps: TestApp[] = [];

beforeAll(async () => {
  t = await startIdentityApp();
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
  sub = await createSubaccount(t, partner);
});
afterAll(async () => {
  for (const app of extraApps.reverse()) await app.close();
  await t?.close();
});

const accountPath = () => `/v3/accounts/${partner.accountId}`;

describe('signed requests over HTTP', () => {
  it('verifies a request signed over the configured base URL + path (signedFetch, Wyre style)', async () => {
    const account = await expectOk<AccountView>(await signedFetch(t, partner, { path: accountPath() }));
    expect(account.id).toBe(partner.accountId);
  });

  it('verifies a request signed over the path and query alone', async () => {
    const account = await expectOk<AccountView>(
      await signedFetch(t, partner, { path: accountPath(), signedBase: '' }),
    );
    expect(account.id).toBe(partner.accountId);
  });

  it('verifies masqueradeAs placed before timestamp (the order the client sent)', async () => {
    const account = await expectOk<AccountView>(
      await signedFetch(t, partner, { path: `/v3/accounts/${sub.id}?masqueradeAs=${sub.id}` }),
    );
    expect(account.id).toBe(sub.id);
  });

  it('accepts and ignores format=json and X-Api-Version: 2', async () => {
    const account = await expectOk<AccountView>(
      await signedFetch(t, partner, {
        path: `${accountPath()}?timestamp=${Date.now()}&format=json`,
        timestamp: null,
        headers: { 'x-api-version': '2' },
      }),
    );
    expect(account.id).toBe(partner.accountId);
  });

  it('signs a POST body byte for byte (Wyre clients sign JSON.stringify output)', async () => {
    const body = JSON.stringify({ desc: 'signed body \u00e9\u00e8 \u20ac', type: 'READONLY' });
    const key = await expectOk<{ desc: string; type: string }>(
      await signedFetch(t, partner, { method: 'POST', path: '/v2/apiKeys', body }),
    );
    expect(key).toMatchObject({ desc: 'signed body \u00e9\u00e8 \u20ac', type: 'READONLY' });
  });

  it('answers an unauthenticated POST with broken JSON 401, not a JSON error', async () => {
    const before = await snapshot(t);
    const response = await fetch(`${t.baseUrl}/v2/apiKeys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"desc": ',
    });
    await expectError(response, 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.missingCredentials',
    });
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('binary bodies: the signature covers the raw bytes and is checked before any parsing', () => {
  // Not valid UTF-8 (0xff 0xfe can never appear in UTF-8) under a JSON content type.
  const binary = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xff, 0xfe, 0x00, 0x80, 0x7d]);

  it('a wrong signature is refused 401 before the body is read as JSON, nothing changes', async () => {
    const before = await snapshot(t);
    const sent = `/v3/accounts?timestamp=${Date.now()}`;
    const { response } = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: partner.secretKey,
      method: 'POST',
      sent,
      body: binary,
      signedBody: Buffer.from(binary.toString('utf8'), 'utf8'), // what a lossy decode would see
    });
    await expectError(response, 401, 'AccessDeniedException', { errorCode: 'accessDenied.invalidSignature' });
    expect(await snapshot(t)).toEqual(before);
  });

  it('the right signature over those bytes passes, then the JSON error follows', async () => {
    const before = await snapshot(t, ['signature_replays']);
    const sent = `/v3/accounts?timestamp=${Date.now()}`;
    const { response, signature } = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: partner.secretKey,
      method: 'POST',
      sent,
      body: binary,
    });
    await expectError(response, 400, 'JsonFormatException', { errorCode: 'validation.invalidUtf8' });
    expect(await snapshot(t, ['signature_replays'])).toEqual(before);
    expect(await replayRecorded(t, signature)).toBe(true);
  });

  it('well-formed UTF-8 that is not JSON: wrong signature 401, right signature 400 JsonFormatException', async () => {
    const body = '{"type": INDIVIDUAL}';
    const wrong = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: other.secretKey,
      method: 'POST',
      sent: `/v3/accounts?timestamp=${Date.now()}`,
      body,
    });
    await expectError(wrong.response, 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.invalidSignature',
    });
    const right = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: partner.secretKey,
      method: 'POST',
      sent: `/v3/accounts?timestamp=${Date.now()}`,
      body,
    });
    await expectError(right.response, 400, 'JsonFormatException', { errorCode: 'validation.jsonFormat' });
  });
});

describe('bad signatures are 401 accessDenied.invalidSignature and change nothing', () => {
  const body = JSON.stringify({ desc: 'should never exist' });
  const badSignatures: [string, (good: string) => string | null][] = [
    ['a missing X-Api-Signature', () => null],
    ['an empty X-Api-Signature', () => ''],
    ['a sha256= prefixed signature', (good) => `sha256=${good}`],
    ['64 non-hex characters', () => 'g'.repeat(64)],
    ['63 hex characters', (good) => good.slice(1)],
    ['65 hex characters', (good) => `${good}0`],
    ['two signatures concatenated (128 hex)', (good) => `${good}${good}`],
    ['the right MAC in base64', (good) => Buffer.from(good, 'hex').toString('base64')],
    ['the right MAC with its last nibble changed', (good) => flipLastNibble(good)],
  ];
  for (const [name, make] of badSignatures) {
    it(`refuses ${name}`, async () => {
      const before = await snapshot(t);
      const sent = `/v2/apiKeys?timestamp=${Date.now()}`;
      const good = sign(partner.secretKey, sent, body);
      const { response } = await rawSigned(t, {
        apiKey: partner.apiKey,
        secret: partner.secretKey,
        method: 'POST',
        sent,
        body,
        signature: make(good),
      });
      await expectError(response, 401, 'AccessDeniedException', {
        errorCode: 'accessDenied.invalidSignature',
      });
      expect(await snapshot(t)).toEqual(before);
    });
  }

  it('refuses a signature made with another key, and an unknown API key, with the same answer', async () => {
    const before = await snapshot(t);
    const wrongKey = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: other.secretKey,
      sent: `${accountPath()}?timestamp=${Date.now()}`,
    });
    const wrongBody = await expectError(wrongKey.response, 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.invalidSignature',
    });
    const unknown = await rawSigned(t, {
      apiKey: 'AK-ZZZZZZZZ-ZZZZZZZZ-ZZZZZZZZ-ZZZZZZZZ',
      secret: partner.secretKey,
      sent: `${accountPath()}?timestamp=${Date.now()}`,
    });
    const unknownBody = await expectError(unknown.response, 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.invalidSignature',
    });
    expect(sameAnswer(unknownBody)).toEqual(sameAnswer(wrongBody));
    expect(await snapshot(t)).toEqual(before);
  });

  it('refuses a body changed by one byte', async () => {
    const before = await snapshot(t);
    const { response } = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: partner.secretKey,
      method: 'POST',
      sent: `/v2/apiKeys?timestamp=${Date.now()}`,
      signedBody: '{"desc":"abc"}',
      body: '{"desc":"abd"}',
    });
    await expectError(response, 401, 'AccessDeniedException', { errorCode: 'accessDenied.invalidSignature' });
    expect(await snapshot(t)).toEqual(before);
  });

  it('refuses a body re-serialised with extra whitespace', async () => {
    const before = await snapshot(t);
    const { response } = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: partner.secretKey,
      method: 'POST',
      sent: `/v2/apiKeys?timestamp=${Date.now()}`,
      signedBody: '{"desc":"abc"}',
      body: '{"desc": "abc"}',
    });
    await expectError(response, 401, 'AccessDeniedException', { errorCode: 'accessDenied.invalidSignature' });
    expect(await snapshot(t)).toEqual(before);
  });

  it('refuses a query a proxy reordered (signed ?format&timestamp, sent ?timestamp&format)', async () => {
    const ts = Date.now();
    const { response } = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: partner.secretKey,
      signedUrl: `${accountPath()}?format=json&timestamp=${ts}`,
      sent: `${accountPath()}?timestamp=${ts}&format=json`,
    });
    await expectError(response, 401, 'AccessDeniedException', { errorCode: 'accessDenied.invalidSignature' });
    // The same request in the signed order verifies: the refusal was the reordering.
    const { response: inOrder } = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: partner.secretKey,
      sent: `${accountPath()}?format=json&timestamp=${ts}`,
    });
    expect((await expectOk<AccountView>(inOrder)).id).toBe(partner.accountId);
  });

  it('refuses a signature for one path sent to another', async () => {
    const ts = Date.now();
    const { response } = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: partner.secretKey,
      signedUrl: `/v3/accounts/${sub.id}?timestamp=${ts}`,
      sent: `${accountPath()}?timestamp=${ts}`,
    });
    await expectError(response, 401, 'AccessDeniedException', { errorCode: 'accessDenied.invalidSignature' });
  });
});

describe('timestamps', () => {
  const getWith = (timestamp: string | number | null, path = accountPath()) =>
    signedFetch(t, partner, { path, timestamp });

  it('refuses a signed request without timestamp: 401 accessDenied.timestampRequired', async () => {
    await expectError(await getWith(null), 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.timestampRequired',
    });
  });

  it('refuses a timestamp more than 5 minutes in the future', async () => {
    await expectError(await getWith(Date.now() + 5 * 60_000 + 30_000), 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.timestampOutOfWindow',
    });
  });

  it('refuses a timestamp more than 5 minutes old', async () => {
    await expectError(await getWith(Date.now() - 5 * 60_000 - 30_000), 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.timestampOutOfWindow',
    });
  });

  /**
   * 4 minutes, or less when PostgreSQL started more recently: a request signed before the database
   * started is refused whatever its window (accessDenied.signedBeforeRestart, replay-restart.test.ts),
   * and CI may run these tests within minutes of the server's start. Whole milliseconds: the
   * uptime has fractions, and a timestamp with a decimal point is no epoch at all.
   */
  async function oldAgeMs(): Promise<number> {
    const { rows } = await t.database.db.query<{ ms: number }>(
      'SELECT (extract(epoch FROM now() - pg_postmaster_start_time()) * 1000)::float8 AS ms',
    );
    return Math.min(4 * 60_000, Math.floor(rows[0]!.ms) - 2_000);
  }

  it('accepts a timestamp 4 minutes old and 4 minutes ahead (inside the default window)', async () => {
    await expectOk(await getWith(Date.now() - (await oldAgeMs())));
    await expectOk(await getWith(Date.now() + 4 * 60_000));
  });

  for (const raw of ['abc', '1.7e12', '-1700000000000', '', '0x18c5a1b2c3d', '17000000000000000']) {
    it(`refuses the non-epoch timestamp "${raw}" with 401 accessDenied.invalidTimestamp`, async () => {
      await expectError(await getWith(raw), 401, 'AccessDeniedException', {
        errorCode: 'accessDenied.invalidTimestamp',
      });
    });
  }

  it('accepts 13 digits (ms) and 16 digits (µs, Date.now() + "000")', async () => {
    const ms = String(Date.now());
    expect(ms).toHaveLength(13);
    await expectOk(await getWith(ms));
    const micro = `${Date.now()}000`;
    expect(micro).toHaveLength(16);
    await expectOk(await getWith(micro));
    // 16 digits are read as µs: 4 minutes old is inside the window (as ms it would be year 50000).
    await expectOk(await getWith(`${Date.now() - (await oldAgeMs())}123`));
  });

  it('refuses 16 digits (µs) outside the window', async () => {
    await expectError(await getWith(`${Date.now() - 10 * 60_000}000`), 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.timestampOutOfWindow',
    });
  });

  it('refuses a duplicated timestamp parameter even when both copies are signed', async () => {
    const ts = Date.now();
    const { response } = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: partner.secretKey,
      sent: `${accountPath()}?timestamp=${ts}&timestamp=${ts}`,
    });
    await expectError(response, 401, 'AccessDeniedException', { errorCode: 'accessDenied.invalidTimestamp' });
  });
});

describe('replays', () => {
  it('the same bytes twice: the second is 401 accessDenied.replayedSignature and creates nothing', async () => {
    const request = {
      method: 'POST',
      path: '/v2/apiKeys',
      body: JSON.stringify({ desc: 'replayed once' }),
      timestamp: Date.now(),
    };
    await expectOk(await signedFetch(t, partner, request));
    const before = await snapshot(t);
    await expectError(await signedFetch(t, partner, request), 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.replayedSignature',
    });
    expect(await snapshot(t)).toEqual(before);
    expect(
      (await t.database.db.query("SELECT 1 FROM api_keys WHERE description = 'replayed once'")).rowCount,
    ).toBe(1);
  });

  it('the same signature written in upper-case hex is still a replay', async () => {
    const sent = `${accountPath()}?timestamp=${Date.now()}`;
    const good = sign(partner.secretKey, sent);
    const first = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: '',
      sent,
      signature: good.toUpperCase(),
    });
    await expectOk(first.response);
    // Sent again as POST: a GET may repeat, but never as another method.
    const second = await rawSigned(t, {
      apiKey: partner.apiKey,
      secret: '',
      method: 'POST',
      sent,
      signature: good,
    });
    await expectError(second.response, 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.replayedSignature',
    });
  });

  it('a microsecond timestamp (16 digits) replayed is refused too: its record is keyed by the time it names', async () => {
    const sent = `${accountPath()}?timestamp=${Date.now()}123`;
    const signature = sign(partner.secretKey, sent);
    await expectOk((await rawSigned(t, { apiKey: partner.apiKey, secret: '', sent, signature })).response);
    const again = await rawSigned(t, { apiKey: partner.apiKey, secret: '', method: 'POST', sent, signature });
    await expectError(again.response, 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.replayedSignature',
    });
  });

  it('30 concurrent POSTs with one signature (looked up together): exactly one gets through', async () => {
    const body = JSON.stringify({ desc: 'thirty at once' });
    const sent = `/v2/apiKeys?timestamp=${Date.now()}`;
    const signature = sign(partner.secretKey, sent, body);
    const responses = await Promise.all(
      Array.from({ length: 30 }, () =>
        rawSigned(t, { apiKey: partner.apiKey, secret: '', method: 'POST', sent, body, signature }),
      ),
    );
    const statuses = responses.map(({ response }) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(29);
    const refused = responses.find(({ response }) => response.status === 401)!;
    await expectError(refused.response, 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.replayedSignature',
    });
    expect(
      (await t.database.db.query("SELECT 1 FROM api_keys WHERE description = 'thirty at once'")).rowCount,
    ).toBe(1);
  });

  it('is caught across two app instances on the same database', async () => {
    const second = await startIdentityApp({ database: t.database });
    extraApps.push(second);
    const ts = Date.now();
    const path = `${accountPath()}?timestamp=${ts}`;
    // Path-only signing: the same bytes are valid on either instance.
    const request = { path, timestamp: null, signedBase: '' } as const;
    await expectOk(await signedFetch(t, partner, request));
    // The identical GET may repeat there (same client address); sent as POST it is a replay.
    await expectOk(await signedFetch(second, partner, request));
    await expectError(
      await signedFetch(second, partner, { ...request, method: 'POST' }),
      401,
      'AccessDeniedException',
      { errorCode: 'accessDenied.replayedSignature' },
    );
    // And the other way round.
    const body = JSON.stringify({ desc: 'two instances' });
    const post = { method: 'POST', path: '/v2/apiKeys', body, timestamp: Date.now() + 1, signedBase: '' };
    await expectOk(await signedFetch(second, partner, post));
    const before = await snapshot(t);
    await expectError(await signedFetch(t, partner, post), 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.replayedSignature',
    });
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('configured public URLs (RAMPART_PUBLIC_URL)', () => {
  let p: TestApp;
  let creds: PartnerCredentials;
  beforeAll(async () => {
    p = await startIdentityApp({
      database: t.database,
      env: { RAMPART_PUBLIC_URL: 'https://api.example.test,http://other.example' },
      loopbackPublicUrl: false,
    });
    extraApps.push(p);
    creds = partner;
  });

  for (const base of ['https://api.example.test', 'http://other.example', '']) {
    it(`verifies a request signed over "${base}" + path`, async () => {
      const account = await expectOk<AccountView>(
        await signedFetch(p, creds, { path: accountPath(), signedBase: base }),
      );
      expect(account.id).toBe(partner.accountId);
    });
  }

  for (const base of [
    'https://evil.example',
    'http://api.example.test',
    'https://api.example.test:8443',
    'https://api.example.test/prefix',
    'loopback',
  ]) {
    it(`refuses a request signed over the unconfigured base ${base}`, async () => {
      const signedBase = base === 'loopback' ? p.baseUrl : base;
      await expectError(
        await signedFetch(p, creds, { path: accountPath(), signedBase }),
        401,
        'AccessDeniedException',
        { errorCode: 'accessDenied.invalidSignature' },
      );
    });
  }
});

describe('RAMPART_SIGNATURE_WINDOW_MS', () => {
  let w: TestApp;
  beforeAll(async () => {
    w = await startIdentityApp({ database: t.database, env: { RAMPART_SIGNATURE_WINDOW_MS: '2000' } });
    extraApps.push(w);
  });

  it('a 2 s window refuses a timestamp 10 s old and one 10 s ahead', async () => {
    await expectError(
      await signedFetch(w, partner, { path: accountPath(), timestamp: Date.now() - 10_000 }),
      401,
      'AccessDeniedException',
      { errorCode: 'accessDenied.timestampOutOfWindow' },
    );
    await expectError(
      await signedFetch(w, partner, { path: accountPath(), timestamp: Date.now() + 10_000 }),
      401,
      'AccessDeniedException',
      { errorCode: 'accessDenied.timestampOutOfWindow' },
    );
  });

  it('while the default-window instance on the same database accepts 10 s old', async () => {
    await expectOk(await signedFetch(t, partner, { path: accountPath(), timestamp: Date.now() - 10_000 }));
    await expectOk(await signedFetch(w, partner, { path: accountPath() }));
  });
});
