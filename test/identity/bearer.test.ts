import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  type AccountView,
  type CreatedKey,
  createKey,
  expectError,
  expectOk,
  rows,
  sameAnswer,
  sessionSecret,
  snapshot,
  startIdentityApp,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials & { webhookSecret: string };

beforeAll(async () => {
  t = await startIdentityApp();
  partner = await createPartner(t);
});
afterAll(async () => t?.close());

const accountPath = () => `/v3/accounts/${partner.accountId}`;

describe('bearer authentication', () => {
  it('works with the secret key for reads and writes', async () => {
    const account = await expectOk<AccountView>(
      await bearerFetch(t, partner.secretKey, 'GET', accountPath()),
    );
    expect(account.id).toBe(partner.accountId);
    const key = await expectOk<CreatedKey>(
      await bearerFetch(t, partner.secretKey, 'POST', '/v2/apiKeys', { desc: 'by bearer' }),
    );
    expect(key.owner).toBe(`account:${partner.accountId}`);
  });

  const refusals: [string, string | undefined][] = [
    ['a wrong secret of the right shape', 'Bearer SK-ZZZZZZZZ-ZZZZZZZZ-ZZZZZZZZ-ZZZZZZZZ'],
    ['the right secret with one character more', 'suffix'],
    ['the right secret missing its last character', 'prefix'],
    ['garbage with spaces', 'Bearer not a token at all'],
    ['a non-ASCII byte in the token', 'Bearer caf\u00e9-0123456789-0123456789'],
    ['an empty token', 'Bearer '],
    ['the word Bearer alone', 'Bearer'],
    ['an empty Authorization header', ''],
    ['Basic credentials', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['the secret without a scheme', 'secret-only'],
  ];
  for (const [name, header] of refusals) {
    it(`refuses ${name}: 401 accessDenied.invalidSession, nothing changed`, async () => {
      let authorization = header ?? '';
      if (header === 'suffix') authorization = `Bearer ${partner.secretKey}x`;
      if (header === 'prefix') authorization = `Bearer ${partner.secretKey.slice(0, -1)}`;
      if (header === 'secret-only') authorization = partner.secretKey;
      const before = await snapshot(t);
      const response = await fetch(`${t.baseUrl}/v2/apiKeys`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: '{"desc":"must not exist"}',
      });
      await expectError(response, 401, 'AccessDeniedException', { errorCode: 'accessDenied.invalidSession' });
      expect(await snapshot(t)).toEqual(before);
    });
  }

  it('a wrong bearer and an unknown one give the same answer', async () => {
    const a = await expectError(
      // One character changed (to one it is not: a secret may end in Q).
      await bearerFetch(
        t,
        `${partner.secretKey.slice(0, -1)}${partner.secretKey.endsWith('Q') ? 'R' : 'Q'}`,
        'GET',
        accountPath(),
      ),
      401,
      'AccessDeniedException',
    );
    const b = await expectError(
      await bearerFetch(t, sessionSecret(), 'GET', accountPath()),
      401,
      'AccessDeniedException',
    );
    expect(sameAnswer(a)).toEqual(sameAnswer(b));
  });

  it('no credentials at all: 401 accessDenied.missingCredentials', async () => {
    await expectError(await fetch(`${t.baseUrl}${accountPath()}`), 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.missingCredentials',
    });
  });
});

describe('secrets at rest', () => {
  const sha256 = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

  it('stores SHA-256 of every secret and a sealed box that does not contain it', async () => {
    const minted = await createKey(t, partner, { desc: 'at rest', type: 'READONLY' });
    const session = sessionSecret();
    const registered = await expectOk<{ apiKey: string }>(
      await fetch(`${t.baseUrl}/v2/sessions/auth/key?secretKey=${session}`, { method: 'POST' }),
    );
    const cases = [
      { apiKey: partner.apiKey, secret: partner.secretKey },
      { apiKey: minted.apiKey, secret: minted.secretKey },
      { apiKey: registered.apiKey, secret: session },
    ];
    for (const { apiKey, secret } of cases) {
      const [row] = await rows<{ secret_hash: string; secret_sealed: Buffer }>(
        t,
        'SELECT secret_hash, secret_sealed FROM api_keys WHERE api_key = $1',
        [apiKey],
      );
      expect(row?.secret_hash).toBe(sha256(secret));
      expect(row?.secret_sealed.includes(Buffer.from(secret, 'utf8'))).toBe(false);
      expect(row?.secret_sealed.includes(Buffer.from(secret.slice(3, 20), 'utf8'))).toBe(false);
      expect(row?.secret_sealed.toString('base64')).not.toContain(Buffer.from(secret).toString('base64'));
      expect(row?.secret_sealed.toString('hex')).not.toContain(Buffer.from(secret).toString('hex'));
    }
  });

  it('a dump of every table (row_to_json) contains no secret key, session secret or webhook secret', async () => {
    const session = sessionSecret();
    await expectOk(
      await fetch(`${t.baseUrl}/v2/sessions/auth/key`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ secretKey: session }),
      }),
    );
    const minted = await createKey(t, partner, { desc: 'dump scan' });
    const secrets = [partner.secretKey, minted.secretKey, session, partner.webhookSecret];

    const apiKeysDump = (await rows<{ j: string }>(t, 'SELECT row_to_json(k)::text AS j FROM api_keys k'))
      .map((row) => row.j)
      .join('\n');
    expect(apiKeysDump).toContain(minted.apiKey); // the scan does see the rows
    for (const secret of secrets) expect(apiKeysDump).not.toContain(secret);

    const tables = await rows<{ table_name: string }>(
      t,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    expect(tables.length).toBeGreaterThan(3);
    for (const { table_name } of tables) {
      const dump = (await rows<{ j: string }>(t, `SELECT row_to_json(x)::text AS j FROM "${table_name}" x`))
        .map((row) => row.j)
        .join('\n');
      for (const secret of secrets) expect(dump, table_name).not.toContain(secret);
    }
  });
});
