import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  type AccountView,
  API_KEY,
  type CreatedKey,
  createKey,
  createSubaccount,
  expectError,
  expectOk,
  rawSigned,
  replayRecorded,
  rows,
  SECRET_KEY,
  sameAnswer,
  snapshot,
  startIdentityApp,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;
const extraApps: TestApp[] = [];

beforeAll(async () => {
  t = await startIdentityApp();
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
});
afterAll(async () => {
  for (const app of extraApps.reverse()) await app.close();
  await t?.close();
});

const accountPath = () => `/v3/accounts/${partner.accountId}`;
const asCredentials = (key: CreatedKey & { accountId: string }): PartnerCredentials => ({
  accountId: key.accountId,
  apiKey: key.apiKey,
  secretKey: key.secretKey,
});

interface KeyRow {
  account_id: string;
  partner_id: string;
  type: string;
  description: string;
  ip_whitelist: string[];
  origin: string;
  created_by: string;
  deleted_at: Date | null;
}
const keyRow = async (apiKey: string) =>
  (
    await rows<KeyRow>(
      t,
      `SELECT account_id, partner_id, type, description, ip_whitelist, origin, created_by, deleted_at
       FROM api_keys WHERE api_key = $1`,
      [apiKey],
    )
  )[0];

describe('POST /v2/apiKeys', () => {
  for (const type of ['FULL', 'READONLY'] as const) {
    it(`creates a ${type} key: {apiKey, secretKey, owner, type, desc, ipWhitelist}`, async () => {
      const response = await signedFetch(t, partner, {
        method: 'POST',
        path: '/v2/apiKeys',
        body: JSON.stringify({ desc: `my ${type} key`, type, ipWhitelist: [] }),
      });
      const key = await expectOk<CreatedKey>(response);
      expect(Object.keys(key).sort()).toEqual([
        'apiKey',
        'desc',
        'ipWhitelist',
        'owner',
        'secretKey',
        'type',
      ]);
      expect(key).toEqual({
        apiKey: expect.stringMatching(API_KEY),
        secretKey: expect.stringMatching(SECRET_KEY),
        owner: `account:${partner.accountId}`,
        type,
        desc: `my ${type} key`,
        ipWhitelist: [],
      });
      expect(await keyRow(key.apiKey)).toEqual({
        account_id: partner.accountId,
        partner_id: partner.accountId,
        type,
        description: `my ${type} key`,
        ip_whitelist: [],
        origin: 'api',
        created_by: partner.apiKey,
        deleted_at: null,
      });
      // The new key works at once.
      const account = await expectOk<AccountView>(
        await signedFetch(
          t,
          { ...partner, apiKey: key.apiKey, secretKey: key.secretKey },
          { path: accountPath() },
        ),
      );
      expect(account.id).toBe(partner.accountId);
    });
  }

  it('defaults to FULL, empty desc and no whitelist', async () => {
    const key = await createKey(t, partner, {});
    expect(key).toMatchObject({ type: 'FULL', desc: '', ipWhitelist: [] });
  });

  it('refuses an unknown type with 400 naming it, nothing stored', async () => {
    const before = await snapshot(t);
    await expectError(
      await bearerFetch(t, partner.secretKey, 'POST', '/v2/apiKeys', { type: 'ADMIN' }),
      400,
      'ValidationException',
      { problematicField: 'type' },
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('ignores a field it does not know: an `owner` in the body never picks the key’s account (decision 60)', async () => {
    const response = await bearerFetch(t, partner.secretKey, 'POST', '/v2/apiKeys', {
      desc: 'x',
      owner: 'account:AC_XXXXXXXXXXX',
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { owner: string }).owner).toBe(`account:${partner.accountId}`);
  });
});

describe('READONLY keys', () => {
  let readonly: PartnerCredentials;
  let victim: CreatedKey & { accountId: string };
  beforeAll(async () => {
    readonly = asCredentials(await createKey(t, partner, { type: 'READONLY', desc: 'reader' }));
    victim = await createKey(t, partner, { desc: 'victim' });
  });

  it('may read with a signature and with the bearer', async () => {
    expect((await expectOk<AccountView>(await signedFetch(t, readonly, { path: accountPath() }))).id).toBe(
      partner.accountId,
    );
    expect(
      (await expectOk<AccountView>(await bearerFetch(t, readonly.secretKey, 'GET', accountPath()))).id,
    ).toBe(partner.accountId);
  });

  it('POST /v2/apiKeys with the bearer: 403 accessDenied.forbidden, nothing changed', async () => {
    const before = await snapshot(t);
    await expectError(
      await bearerFetch(t, readonly.secretKey, 'POST', '/v2/apiKeys', { desc: 'nope' }),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('POST /v2/apiKeys signed: 403, only the consumed signature is recorded', async () => {
    const before = await snapshot(t, ['signature_replays']);
    const { response, signature } = await rawSigned(t, {
      apiKey: readonly.apiKey,
      secret: readonly.secretKey,
      method: 'POST',
      sent: `/v2/apiKeys?timestamp=${Date.now()}`,
      body: JSON.stringify({ desc: 'nope' }),
    });
    await expectError(response, 403, 'AccessDeniedException', { errorCode: 'accessDenied.forbidden' });
    expect(await snapshot(t, ['signature_replays'])).toEqual(before);
    expect(await replayRecorded(t, signature)).toBe(true);
  });

  it('cannot create a sub-account, update an account, or delete a key: 403 each, nothing changed', async () => {
    const before = await snapshot(t);
    await expectError(
      await bearerFetch(t, readonly.secretKey, 'POST', '/v3/accounts', {
        type: 'INDIVIDUAL',
        country: 'US',
        subaccount: true,
      }),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
    await expectError(
      await bearerFetch(t, readonly.secretKey, 'POST', accountPath(), {
        profileFields: [{ fieldId: 'individualLegalName', value: 'Mallory' }],
      }),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
    await expectError(
      await bearerFetch(t, readonly.secretKey, 'DELETE', `/v2/apiKey/${victim.apiKey}`),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
    expect(await snapshot(t)).toEqual(before);
    await expectOk(await bearerFetch(t, victim.secretKey, 'GET', accountPath()));
  });
});

describe('DELETE /v2/apiKey/{apiKey}', () => {
  it('answers {} and the key fails at once, by signature and by bearer', async () => {
    const key = await createKey(t, partner, { desc: 'short-lived' });
    const creds = asCredentials(key);
    await expectOk(await signedFetch(t, creds, { path: accountPath() }));
    await expectOk(await bearerFetch(t, key.secretKey, 'GET', accountPath()));

    const deleted = await signedFetch(t, partner, { method: 'DELETE', path: `/v2/apiKey/${key.apiKey}` });
    expect(await expectOk(deleted)).toEqual({});
    expect((await keyRow(key.apiKey))?.deleted_at).toBeInstanceOf(Date);

    await expectError(await signedFetch(t, creds, { path: accountPath() }), 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.invalidSignature',
    });
    await expectError(
      await bearerFetch(t, key.secretKey, 'GET', accountPath()),
      401,
      'AccessDeniedException',
      {
        errorCode: 'accessDenied.invalidSession',
      },
    );
  });

  it('also at once on a second instance that had just used (and cached) the key', async () => {
    const second = await startIdentityApp({ database: t.database });
    extraApps.push(second);
    const key = await createKey(t, partner, { desc: 'cached elsewhere' });
    const creds = asCredentials(key);
    // Warm the second instance's signing-secret cache.
    await expectOk(await signedFetch(second, creds, { path: accountPath() }));
    await expectOk(await signedFetch(second, creds, { path: accountPath() }));
    await expectOk(await bearerFetch(second, key.secretKey, 'GET', accountPath()));

    expect(
      await expectOk(await bearerFetch(t, partner.secretKey, 'DELETE', `/v2/apiKey/${key.apiKey}`)),
    ).toEqual({});

    const before = await snapshot(t);
    await expectError(
      await signedFetch(second, creds, { path: accountPath() }),
      401,
      'AccessDeniedException',
      {
        errorCode: 'accessDenied.invalidSignature',
      },
    );
    await expectError(
      await signedFetch(second, creds, { method: 'POST', path: '/v2/apiKeys', body: '{"desc":"zombie"}' }),
      401,
      'AccessDeniedException',
      { errorCode: 'accessDenied.invalidSignature' },
    );
    await expectError(
      await bearerFetch(second, key.secretKey, 'GET', accountPath()),
      401,
      'AccessDeniedException',
      { errorCode: 'accessDenied.invalidSession' },
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it("another partner's key: 404 like an unknown key, and it keeps working", async () => {
    const theirs = await createKey(t, other, { desc: 'not yours' });
    const before = await snapshot(t, ['signature_replays']);
    const foreign = await expectError(
      await bearerFetch(t, partner.secretKey, 'DELETE', `/v2/apiKey/${theirs.apiKey}`),
      404,
      'NotFoundException',
    );
    const unknown = await expectError(
      await bearerFetch(t, partner.secretKey, 'DELETE', '/v2/apiKey/AK-ZZZZZZZZ-ZZZZZZZZ-ZZZZZZZZ-ZZZZZZZZ'),
      404,
      'NotFoundException',
    );
    expect(sameAnswer(foreign)).toEqual(sameAnswer(unknown));
    // Nor through a signed request, nor by masquerading as the other partner.
    const signed = await signedFetch(t, partner, { method: 'DELETE', path: `/v2/apiKey/${other.apiKey}` });
    await expectError(signed, 404, 'NotFoundException');
    expect(await snapshot(t, ['signature_replays'])).toEqual(before);
    await expectOk(await bearerFetch(t, theirs.secretKey, 'GET', `/v3/accounts/${other.accountId}`));
    await expectOk(await signedFetch(t, other, { path: `/v3/accounts/${other.accountId}` }));
  });

  it('a key already deleted: 404', async () => {
    const key = await createKey(t, partner, { desc: 'twice' });
    expect(
      await expectOk(await bearerFetch(t, partner.secretKey, 'DELETE', `/v2/apiKey/${key.apiKey}`)),
    ).toEqual({});
    const before = await snapshot(t);
    await expectError(
      await bearerFetch(t, partner.secretKey, 'DELETE', `/v2/apiKey/${key.apiKey}`),
      404,
      'NotFoundException',
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it("a master may delete its sub-account's key; a sub-account's key may not delete its master's", async () => {
    const sub = await createSubaccount(t, partner);
    const subKey = await createKey(t, partner, { desc: 'sub key' }, sub.id);
    expect(subKey.owner).toBe(`account:${sub.id}`);
    const masterKey = await createKey(t, partner, { desc: 'master key' });

    const before = await snapshot(t);
    await expectError(
      await bearerFetch(t, subKey.secretKey, 'DELETE', `/v2/apiKey/${masterKey.apiKey}`),
      404,
      'NotFoundException',
    );
    await expectError(
      await bearerFetch(t, subKey.secretKey, 'DELETE', `/v2/apiKey/${partner.apiKey}`),
      404,
      'NotFoundException',
    );
    expect(await snapshot(t)).toEqual(before);
    await expectOk(await bearerFetch(t, masterKey.secretKey, 'GET', accountPath()));

    expect(
      await expectOk(await bearerFetch(t, partner.secretKey, 'DELETE', `/v2/apiKey/${subKey.apiKey}`)),
    ).toEqual({});
    await expectError(
      await bearerFetch(t, subKey.secretKey, 'GET', `/v3/accounts/${sub.id}`),
      401,
      'AccessDeniedException',
      { errorCode: 'accessDenied.invalidSession' },
    );
  });

  it('a sub-account key may delete itself', async () => {
    const sub = await createSubaccount(t, partner);
    const subKey = await createKey(t, partner, { desc: 'self-deleting' }, sub.id);
    const response = await signedFetch(t, asCredentials(subKey), {
      method: 'DELETE',
      path: `/v2/apiKey/${subKey.apiKey}`,
    });
    expect(await expectOk(response)).toEqual({});
    await expectError(
      await bearerFetch(t, subKey.secretKey, 'GET', `/v3/accounts/${sub.id}`),
      401,
      'AccessDeniedException',
    );
  });
});
