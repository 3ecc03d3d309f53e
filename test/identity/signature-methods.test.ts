import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSignatureUses, type SignatureUse } from '../../src/identity/keys-store.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, sign } from '../helpers/partner.ts';
import { asUser, createUser, TRANSFER_FIELDS, US_BANK_ACCOUNT } from '../users/support.ts';
import { expectError, expectOk, rawSigned, snapshot, startIdentityApp, unknownId } from './support.ts';

/**
 * A signature covers the URL and the body, not the HTTP method: the replay record binds the
 * method and the client address of its first use. An identical GET may repeat from that address;
 * every other later use is a replay.
 */
let t: TestApp;
let proxied: TestApp;
let partner: PartnerCredentials;
let userId: string;
beforeAll(async () => {
  t = await startIdentityApp();
  // Same database, believing X-Forwarded-For from the loopback "proxy" the tests connect from.
  proxied = await startIdentityApp({ database: t.database, env: { RAMPART_TRUST_PROXY: '127.0.0.1' } });
  partner = await createPartner(t, { usersApi: true });
  userId = (await createUser(t, partner, { fields: TRANSFER_FIELDS, scopes: ['TRANSFER', 'ACH'] })).id;
});
afterAll(async () => {
  await proxied?.close();
  await t?.close();
});

const REPLAYED = { errorCode: 'accessDenied.replayedSignature' };
const accountPath = () => `/v3/accounts/${partner.accountId}?timestamp=${Date.now()}`;
const signed = (sent: string, body?: string) => ({ sent, signature: sign(partner.secretKey, sent, body) });

/** The same bytes again, with `method` (path-only signing: valid on either app). */
const send = (app: TestApp, method: string, request: { sent: string; signature: string }, extra = {}) =>
  rawSigned(app, { apiKey: partner.apiKey, secret: '', method, ...request, ...extra }).then(
    (r) => r.response,
  );

/** A signed request over a connection from another loopback source address (no proxy involved). */
function sendFrom(localAddress: string, method: string, request: { sent: string; signature: string }) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const call = http.request(
      {
        host: '127.0.0.1',
        port: Number(new URL(t.baseUrl).port),
        localAddress,
        method,
        path: request.sent,
        headers: { 'x-api-key': partner.apiKey, 'x-api-signature': request.signature },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    call.on('error', reject);
    call.end();
  });
}

/** A payment method's URL as its user (masqueradeAs), with a timestamp. */
const paymentMethodPath = (id: string) =>
  `/v2/paymentMethod/${id}?masqueradeAs=${encodeURIComponent(`user:${userId}`)}&timestamp=${Date.now()}`;

describe('a signed GET of a payment method sent again as DELETE', () => {
  it('is refused 401 replayedSignature, and the payment method is still there, unchanged', async () => {
    const method = await expectOk<{ id: string; status: string }>(
      await asUser(t, partner, userId, 'POST', '/v2/paymentMethods', US_BANK_ACCOUNT),
    );
    const get = signed(paymentMethodPath(method.id));
    expect((await expectOk<{ id: string }>(await send(t, 'GET', get))).id).toBe(method.id);
    const before = await snapshot(t);
    await expectError(await send(t, 'DELETE', get), 401, 'AccessDeniedException', REPLAYED);
    // Through the other process too, and from the address the GET came from.
    await expectError(await send(proxied, 'DELETE', get), 401, 'AccessDeniedException', REPLAYED);
    expect(await snapshot(t)).toEqual(before);
    const { rows } = await t.database.db.query('SELECT status FROM payment_methods WHERE id = $1', [
      method.id,
    ]);
    expect(rows).toEqual([{ status: method.status }]);
    // The GET itself may still repeat: the refusal was the method.
    expect((await expectOk<{ status: string }>(await send(t, 'GET', get))).status).toBe(method.status);
  });
});

describe('an identical signed GET', () => {
  it('repeats from the same address inside the window (polling with a timestamp of whole seconds)', async () => {
    const get = signed(accountPath());
    for (let i = 0; i < 3; i++)
      expect((await expectOk<{ id: string }>(await send(t, 'GET', get))).id).toBe(partner.accountId);
    const { rows } = await t.database.db.query(
      'SELECT method, address FROM signature_replays WHERE signature = $1',
      [get.signature],
    );
    expect(rows).toEqual([{ method: 'GET', address: '127.0.0.1' }]);
  });

  it('is refused from another source address, and still repeats from the first one', async () => {
    const get = signed(accountPath());
    await expectOk(await send(t, 'GET', get));
    const other = await sendFrom('127.0.0.2', 'GET', get);
    expect(other.status, other.body).toBe(401);
    expect(JSON.parse(other.body)).toMatchObject(REPLAYED);
    const same = await sendFrom('127.0.0.1', 'GET', get);
    expect(same.status, same.body).toBe(200);
  });

  it('is refused from another client address behind a trusted proxy (X-Forwarded-For)', async () => {
    const get = signed(accountPath());
    const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
    await expectOk(await send(proxied, 'GET', get, from('203.0.113.7')));
    await expectOk(await send(proxied, 'GET', get, from('203.0.113.7')));
    await expectError(
      await send(proxied, 'GET', get, from('198.51.100.9')),
      401,
      'AccessDeniedException',
      REPLAYED,
    );
    // The proxy's own address is another client too.
    await expectError(await send(proxied, 'GET', get), 401, 'AccessDeniedException', REPLAYED);
  });

  it('sent as POST (an account update, signed over the URL and no body) is refused, changing nothing', async () => {
    const get = signed(accountPath());
    await expectOk(await send(t, 'GET', get));
    const before = await snapshot(t);
    await expectError(await send(t, 'POST', get), 401, 'AccessDeniedException', REPLAYED);
    expect(await snapshot(t)).toEqual(before);
  });

  it('30 at once from one address (looked up together): all get through', async () => {
    const get = signed(accountPath());
    const responses = await Promise.all(Array.from({ length: 30 }, () => send(t, 'GET', get)));
    expect(responses.map((response) => response.status)).toEqual(Array(30).fill(200));
  });
});

describe('a signature first used with another method than GET', () => {
  const keyBody = (desc: string) => JSON.stringify({ desc });
  const keysNamed = async (desc: string) =>
    (await t.database.db.query('SELECT 1 FROM api_keys WHERE description = $1', [desc])).rowCount;

  it('POST repeated: refused, one key created', async () => {
    const body = keyBody('posted twice');
    const post = { ...signed(`/v2/apiKeys?timestamp=${Date.now()}`, body), body };
    await expectOk(await send(t, 'POST', post));
    const before = await snapshot(t);
    await expectError(await send(t, 'POST', post), 401, 'AccessDeniedException', REPLAYED);
    expect(await snapshot(t)).toEqual(before);
    expect(await keysNamed('posted twice')).toBe(1);
  });

  it('is refused as a GET afterwards', async () => {
    const deleteFirst = signed(paymentMethodPath(unknownId('PA')));
    // Verified and recorded as a DELETE, then 404: there is no such payment method.
    expect((await send(t, 'DELETE', deleteFirst)).status).toBe(404);
    await expectError(await send(t, 'GET', deleteFirst), 401, 'AccessDeniedException', REPLAYED);
  });
});

describe('recordSignatureUses (one statement for a group of uses)', () => {
  const now = Date.now();
  const use = (signature: string, method: string, address = '127.0.0.1'): SignatureUse => ({
    apiKey: partner.apiKey,
    signature,
    expiresAtMs: now + 60_000,
    signedAtMs: now,
    method,
    address,
    withBalances: false,
  });
  const accepted = async (uses: SignatureUse[]) =>
    (await recordSignatureUses(t.database.asyncCommitDb, uses)).map((answer) => answer?.accepted);

  it('hold the uses of one group to its first: GETs from its address pass, anything else is a replay', async () => {
    expect(
      await accepted([
        use('a1'.repeat(32), 'GET'),
        use('a1'.repeat(32), 'GET'),
        use('a1'.repeat(32), 'GET', '127.0.0.9'),
        use('a1'.repeat(32), 'DELETE'),
        use('b2'.repeat(32), 'POST'),
        use('b2'.repeat(32), 'POST'),
        use('b2'.repeat(32), 'GET'),
      ]),
    ).toEqual([true, true, false, false, true, false, false]);
    // And in a later group, against the recorded first uses.
    expect(
      await accepted([
        use('a1'.repeat(32), 'GET', '127.0.0.9'),
        use('a1'.repeat(32), 'GET'),
        use('b2'.repeat(32), 'GET'),
      ]),
    ).toEqual([false, false, false]);
    expect(await accepted([use('a1'.repeat(32), 'GET')])).toEqual([true]);
  });

  it('read a record written before migration 032 (no method) as not a GET: a GET repeat is refused', async () => {
    const signature = 'c3'.repeat(32);
    await t.database.db.query(
      `INSERT INTO signature_replays (signed_at, signature, expires_at)
       VALUES (to_timestamp($1 / 1000.0), $2, now() + interval '1 minute')`,
      [now, signature],
    );
    expect(await accepted([use(signature, 'GET')])).toEqual([false]);
  });

  it('keep a repeated record for the longer of two windows', async () => {
    const signature = 'd4'.repeat(32);
    expect(await accepted([use(signature, 'GET')])).toEqual([true]);
    expect(await accepted([{ ...use(signature, 'GET'), expiresAtMs: now + 3_600_000 }])).toEqual([true]);
    expect(await accepted([{ ...use(signature, 'GET'), expiresAtMs: now + 1_000 }])).toEqual([true]);
    const { rows } = await t.database.db.query<{ ms: string }>(
      'SELECT (extract(epoch FROM expires_at) * 1000)::bigint AS ms FROM signature_replays WHERE signature = $1',
      [signature],
    );
    expect(Number(rows[0]?.ms)).toBe(now + 3_600_000);
  });
});
