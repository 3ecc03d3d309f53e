import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  API_KEY,
  type CreatedKey,
  createSubaccount,
  expectError,
  expectOk,
  rows,
  SECRET_KEY,
  snapshot,
  unknownId,
} from '../identity/support.ts';

// A partner who lost every secret gets a new key from the operator, for the same account; the
// operator can list the account's keys (never a secret) and revoke one. Every call is audited.
let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterAll(async () => t?.close());

const keysPath = (accountId: string) => `/operator/v1/accounts/${accountId}/api-keys`;

function operatorCall(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const base = operatorHeaders();
  if (body === undefined) delete base['content-type'];
  return fetch(`${t.baseUrl}${path}`, {
    method,
    headers: { ...base, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

interface Listed {
  data: {
    apiKey: string;
    type: string;
    desc: string;
    ipWhitelist: string[];
    origin: string;
    createdAt: number;
  }[];
}

interface AuditRow {
  action: string;
  target: string | null;
  outcome: string;
  status: number;
  detail: Record<string, unknown>;
}
const audits = () =>
  rows<AuditRow>(t, 'SELECT action, target, outcome, status, detail FROM operator_audit ORDER BY id');

const credsOf = (accountId: string, key: CreatedKey): PartnerCredentials => ({
  accountId,
  apiKey: key.apiKey,
  secretKey: key.secretKey,
});

describe('POST /operator/v1/accounts/{accountId}/api-keys', () => {
  it('mints a working key for the account, shown once, audited without its secret', async () => {
    const created = await expectOk<CreatedKey>(
      await operatorCall('POST', keysPath(partner.accountId), { desc: 'replacement', type: 'FULL' }),
    );
    expect(created).toEqual({
      apiKey: expect.stringMatching(API_KEY),
      secretKey: expect.stringMatching(SECRET_KEY),
      owner: `account:${partner.accountId}`,
      type: 'FULL',
      desc: 'replacement',
      ipWhitelist: [],
    });
    const creds = credsOf(partner.accountId, created);
    await expectOk(await signedFetch(t, creds, { path: `/v3/accounts/${partner.accountId}` }));
    await expectOk(await bearerFetch(t, created.secretKey, 'POST', '/v2/apiKeys', { desc: 'made by it' }));

    const [row] = await rows(
      t,
      'SELECT account_id, partner_id, type, description, origin, created_by FROM api_keys WHERE api_key = $1',
      [created.apiKey],
    );
    expect(row).toEqual({
      account_id: partner.accountId,
      partner_id: partner.accountId,
      type: 'FULL',
      description: 'replacement',
      origin: 'operator',
      created_by: 'operator',
    });
    const audit = (await audits()).find((entry) => entry.detail.apiKey === created.apiKey);
    expect(audit).toEqual({
      action: 'POST /operator/v1/accounts/:accountId/api-keys',
      target: `account:${partner.accountId}`,
      outcome: 'ok',
      status: 200,
      detail: {
        apiKey: created.apiKey,
        owner: `account:${partner.accountId}`,
        type: 'FULL',
        desc: 'replacement',
        ipWhitelist: [],
      },
    });
    expect(JSON.stringify(await audits())).not.toContain(created.secretKey);
  });

  it('mints a READONLY, whitelisted key for a sub-account', async () => {
    const sub = await createSubaccount(t, partner);
    const created = await expectOk<CreatedKey>(
      await operatorCall('POST', keysPath(sub.id), { type: 'READONLY', ipWhitelist: ['127.0.0.1'] }),
    );
    expect(created).toMatchObject({
      owner: `account:${sub.id}`,
      type: 'READONLY',
      desc: '',
      ipWhitelist: ['127.0.0.1'],
    });
    await expectOk(await bearerFetch(t, created.secretKey, 'GET', `/v3/accounts/${sub.id}`));
    await expectError(
      await bearerFetch(t, created.secretKey, 'POST', '/v2/apiKeys', {}),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
    const [row] = await rows(t, 'SELECT partner_id FROM api_keys WHERE api_key = $1', [created.apiKey]);
    expect(row).toEqual({ partner_id: partner.accountId });
  });

  it('replays an Idempotency-Key with the same bytes, one key made, the answer stored sealed', async () => {
    const send = () =>
      operatorCall('POST', keysPath(partner.accountId), { desc: 'once' }, { 'idempotency-key': 'op-once' });
    const first = await send();
    const firstText = await first.text();
    const again = await send();
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    const [count] = await rows<{ n: number }>(
      t,
      `SELECT count(*)::int AS n FROM api_keys WHERE description = 'once'`,
    );
    expect(count?.n).toBe(1);
    const [stored] = await rows(
      t,
      `SELECT response_body, response_sealed IS NOT NULL AS sealed FROM idempotency_keys WHERE key = 'op-once'`,
    );
    expect(stored).toEqual({ response_body: null, sealed: true });
  });

  it('refuses an unknown account (404), bad input (400) and no token (401), nothing stored', async () => {
    const before = await snapshot(t);
    await expectError(await operatorCall('POST', keysPath(unknownId('AC')), {}), 404, 'NotFoundException');
    await expectError(
      await operatorCall('POST', keysPath(partner.accountId), { type: 'ADMIN' }),
      400,
      'ValidationException',
      { problematicField: 'type' },
    );
    await expectError(
      await operatorCall('POST', keysPath(partner.accountId), { ipWhitelist: ['10.0.0.0/33'] }),
      400,
      'ValidationException',
      { problematicField: 'ipWhitelist[0]' },
    );
    await expectError(
      await bearerFetch(t, partner.secretKey, 'POST', keysPath(partner.accountId), {}),
      401,
      'AccessDeniedException',
    );
    expect(await snapshot(t)).toEqual(before);
    // Each refusal is audited as well (by the operator hook, once the answer is out).
    await vi.waitFor(async () => {
      const refused = (await audits()).filter((entry) => entry.outcome !== 'ok');
      expect(refused.map((entry) => entry.status)).toEqual(expect.arrayContaining([404, 400, 400, 401]));
    });
  });
});

describe('GET and DELETE /operator/v1/accounts/{accountId}/api-keys', () => {
  it('lists the live keys without secrets, revokes one (it fails at once), 404 for others', async () => {
    const other = await createPartner(t, { name: 'Other partner' });
    const doomed = await expectOk<CreatedKey>(
      await operatorCall('POST', keysPath(other.accountId), { desc: 'doomed' }),
    );
    const listing = await operatorCall('GET', keysPath(other.accountId));
    const text = await listing.text();
    expect(listing.status, text).toBe(200);
    expect(text).not.toContain(other.secretKey);
    expect(text).not.toContain(doomed.secretKey);
    expect((JSON.parse(text) as Listed).data).toEqual([
      {
        apiKey: other.apiKey,
        type: 'FULL',
        desc: 'first key',
        ipWhitelist: [],
        origin: 'operator',
        createdAt: expect.any(Number),
      },
      {
        apiKey: doomed.apiKey,
        type: 'FULL',
        desc: 'doomed',
        ipWhitelist: [],
        origin: 'operator',
        createdAt: expect.any(Number),
      },
    ]);

    // A key of another account through this account's path: 404, and it keeps working.
    const before = await snapshot(t);
    await expectError(
      await operatorCall('DELETE', `${keysPath(partner.accountId)}/${doomed.apiKey}`),
      404,
      'NotFoundException',
    );
    expect(await snapshot(t)).toEqual(before);
    await expectOk(await bearerFetch(t, doomed.secretKey, 'GET', `/v3/accounts/${other.accountId}`));

    expect(
      await expectOk(await operatorCall('DELETE', `${keysPath(other.accountId)}/${doomed.apiKey}`)),
    ).toEqual({});
    await expectError(
      await bearerFetch(t, doomed.secretKey, 'GET', `/v3/accounts/${other.accountId}`),
      401,
      'AccessDeniedException',
    );
    await expectError(
      await signedFetch(t, credsOf(other.accountId, doomed), { path: `/v3/accounts/${other.accountId}` }),
      401,
      'AccessDeniedException',
    );
    const after = (await expectOk<Listed>(await operatorCall('GET', keysPath(other.accountId)))).data;
    expect(after.map((key) => key.apiKey)).toEqual([other.apiKey]);
    const revocations = (await audits()).filter((entry) => entry.action.startsWith('DELETE'));
    expect(revocations.filter((entry) => entry.outcome === 'ok')).toEqual([
      {
        action: 'DELETE /operator/v1/accounts/:accountId/api-keys/:apiKey',
        target: `account:${other.accountId}`,
        outcome: 'ok',
        status: 200,
        detail: { apiKey: doomed.apiKey, revoked: true },
      },
    ]);

    // Revoked already, or unknown account: 404.
    await expectError(
      await operatorCall('DELETE', `${keysPath(other.accountId)}/${doomed.apiKey}`),
      404,
      'NotFoundException',
    );
    await expectError(await operatorCall('GET', keysPath(unknownId('AC'))), 404, 'NotFoundException');
  });
});
