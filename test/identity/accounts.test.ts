import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operatorHeaders, type TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  ACCOUNT_ID,
  type AccountView,
  API_KEY,
  countRows,
  createKey,
  createSubaccount,
  expectError,
  expectOk,
  rows,
  SECRET_KEY,
  sameAnswer,
  snapshot,
  startIdentityApp,
  unknownId,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;

beforeAll(async () => {
  t = await startIdentityApp();
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
});
afterAll(async () => t?.close());

const ADDRESS = { street1: '1 Main St', city: 'Portland', state: 'OR', postalCode: '97209', country: 'US' };
const SSN = '123-45-6789';
const GOOD_FIELDS = [
  { fieldId: 'individualLegalName', value: 'Ada Lovelace' },
  { fieldId: 'individualEmail', value: 'ada@example.com' },
  { fieldId: 'individualCellphoneNumber', value: '+14155550100' },
  { fieldId: 'individualDateOfBirth', value: '1990-12-10' },
  { fieldId: 'individualResidenceAddress', value: ADDRESS },
  { fieldId: 'individualSsn', value: SSN },
];
const ALL_FIELD_IDS = [
  'individualLegalName',
  'individualEmail',
  'individualCellphoneNumber',
  'individualDateOfBirth',
  'individualSsn',
  'individualResidenceAddress',
  'individualGovernmentId',
  'individualProofOfAddress',
  'individualSourceOfFunds',
];

const createBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'INDIVIDUAL', country: 'US', subaccount: true, ...extra });

function expectAccountShape(account: AccountView) {
  expect(account).toMatchObject({
    id: expect.stringMatching(ACCOUNT_ID),
    status: expect.stringMatching(/^(OPEN|PENDING|APPROVED|CLOSED)$/),
    type: expect.stringMatching(/^(INDIVIDUAL|BUSINESS)$/),
    country: expect.stringMatching(/^[A-Z]{2}$/),
    depositAddresses: expect.any(Object),
    totalBalances: expect.any(Object),
    availableBalances: expect.any(Object),
  });
  expect(Number.isInteger(account.createdAt)).toBe(true);
  // Epoch milliseconds, not seconds: 13 digits for any date of this century.
  expect(String(account.createdAt)).toHaveLength(13);
  expect(account.profileFields.map((field) => field.fieldId).sort()).toEqual([...ALL_FIELD_IDS].sort());
  for (const field of account.profileFields) {
    expect(Object.keys(field).sort()).toEqual(['fieldId', 'fieldType', 'note', 'status', 'value']);
    expect(field.status).toMatch(/^(OPEN|PENDING|APPROVED)$/);
  }
}

const fieldOf = (account: AccountView, fieldId: string) =>
  account.profileFields.find((field) => field.fieldId === fieldId);

describe('sub-accounts (POST /v3/accounts with subaccount: true)', () => {
  it('a master creates one with profile fields; the Account has the API.md shape', async () => {
    const startedAt = Date.now();
    const response = await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/accounts',
      body: createBody({ profileFields: GOOD_FIELDS }),
    });
    const account = await expectOk<AccountView>(response);
    expectAccountShape(account);
    expect(account).toMatchObject({ status: 'OPEN', type: 'INDIVIDUAL', country: 'US' });
    expect(account.createdAt).toBeGreaterThanOrEqual(startedAt - 60_000);
    expect(account.createdAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(fieldOf(account, 'individualLegalName')).toEqual({
      fieldId: 'individualLegalName',
      fieldType: 'STRING',
      value: 'Ada Lovelace',
      note: null,
      status: 'PENDING',
    });
    expect(fieldOf(account, 'individualEmail')).toMatchObject({
      fieldType: 'EMAIL',
      value: 'ada@example.com',
    });
    expect(fieldOf(account, 'individualCellphoneNumber')).toMatchObject({
      fieldType: 'CELLPHONE',
      value: '+14155550100',
    });
    expect(fieldOf(account, 'individualDateOfBirth')).toMatchObject({
      fieldType: 'DATE',
      value: '1990-12-10',
    });
    expect(fieldOf(account, 'individualResidenceAddress')).toMatchObject({
      fieldType: 'ADDRESS',
      value: ADDRESS,
    });
    expect(fieldOf(account, 'individualSsn')).toMatchObject({ value: 'REDACTED', status: 'PENDING' });
    expect(fieldOf(account, 'individualGovernmentId')).toEqual({
      fieldId: 'individualGovernmentId',
      fieldType: 'DOCUMENT',
      value: null,
      note: null,
      status: 'OPEN',
    });

    const [row] = await rows<{ kind: string; parent_id: string; partner_id: string }>(
      t,
      'SELECT kind, parent_id, partner_id FROM accounts WHERE id = $1',
      [account.id],
    );
    expect(row).toEqual({ kind: 'subaccount', parent_id: partner.accountId, partner_id: partner.accountId });

    // GET by path (the master reads its sub-account) and via masquerading give the same Account.
    const read = await expectOk<AccountView>(
      await signedFetch(t, partner, { path: `/v3/accounts/${account.id}` }),
    );
    expect(read).toEqual(account);
    const masqueraded = await expectOk<AccountView>(
      await signedFetch(t, partner, { path: `/v3/accounts/${account.id}?masqueradeAs=${account.id}` }),
    );
    expect(masqueraded).toEqual(account);
  });

  it('individualSsn reads back "REDACTED" and is not stored in clear', async () => {
    const ssn = '987-65-4329';
    const account = await createSubaccount(t, partner, {
      profileFields: [{ fieldId: 'individualSsn', value: ssn }],
    });
    expect(fieldOf(account, 'individualSsn')?.value).toBe('REDACTED');
    const read = await expectOk<AccountView>(
      await bearerFetch(t, partner.secretKey, 'GET', `/v3/accounts/${account.id}`),
    );
    expect(fieldOf(read, 'individualSsn')?.value).toBe('REDACTED');
    expect(JSON.stringify(read)).not.toContain(ssn);
    const dump = (await rows<{ j: string }>(t, 'SELECT row_to_json(a)::text AS j FROM accounts a'))
      .map((r) => r.j)
      .join('\n');
    expect(dump).toContain(account.id);
    for (const form of [ssn, ssn.replaceAll('-', ''), SSN, SSN.replaceAll('-', '')])
      expect(dump).not.toContain(form);
  });

  it('POST /v3/accounts/{id} updates profile fields', async () => {
    const account = await createSubaccount(t, partner);
    const updated = await expectOk<AccountView>(
      await signedFetch(t, partner, {
        method: 'POST',
        path: `/v3/accounts/${account.id}`,
        body: JSON.stringify({
          profileFields: [{ fieldId: 'individualLegalName', value: 'Charles Babbage' }],
        }),
      }),
    );
    expectAccountShape(updated);
    expect(fieldOf(updated, 'individualLegalName')).toMatchObject({
      value: 'Charles Babbage',
      status: 'PENDING',
    });
    const read = await expectOk<AccountView>(
      await bearerFetch(t, partner.secretKey, 'GET', `/v3/accounts/${account.id}`),
    );
    expect(fieldOf(read, 'individualLegalName')?.value).toBe('Charles Babbage');
  });

  const badFields: [string, { fieldId: string; value: unknown }, string][] = [
    ['a bad email', { fieldId: 'individualEmail', value: 'not-an-email' }, 'individualEmail'],
    [
      'a phone without plus',
      { fieldId: 'individualCellphoneNumber', value: '4155550100' },
      'individualCellphoneNumber',
    ],
    [
      'a date that does not exist (2023-02-30)',
      { fieldId: 'individualDateOfBirth', value: '2023-02-30' },
      'individualDateOfBirth',
    ],
    [
      'a date in the future',
      { fieldId: 'individualDateOfBirth', value: '2999-01-01' },
      'individualDateOfBirth',
    ],
    [
      'a date in another format',
      { fieldId: 'individualDateOfBirth', value: '12/10/1990' },
      'individualDateOfBirth',
    ],
    [
      'an address missing postalCode',
      { fieldId: 'individualResidenceAddress', value: { ...ADDRESS, postalCode: undefined } },
      'individualResidenceAddress.postalCode',
    ],
    ['an unknown fieldId', { fieldId: 'individualFavouriteColour', value: 'blue' }, 'profileFields.fieldId'],
    [
      'a DOCUMENT field through profileFields',
      { fieldId: 'individualGovernmentId', value: 'DO_ZZZZ2222222' },
      'individualGovernmentId',
    ],
    ['an empty name', { fieldId: 'individualLegalName', value: '   ' }, 'individualLegalName'],
  ];

  for (const [name, bad, field] of badFields) {
    it(`creation with ${name} among good fields: 400 naming ${field}, no account created`, async () => {
      const before = await snapshot(t, ['signature_replays']);
      const profileFields = [GOOD_FIELDS[0], bad, GOOD_FIELDS[1]];
      const response = await signedFetch(t, partner, {
        method: 'POST',
        path: '/v3/accounts',
        body: createBody({ profileFields }),
      });
      const body = await expectError(response, 400, 'ValidationException', { problematicField: field });
      if (field === 'profileFields.fieldId') expect(body.message).toContain('individualFavouriteColour');
      expect(await snapshot(t, ['signature_replays'])).toEqual(before);
    });

    it(`update with ${name} among good fields: 400 naming ${field}, nothing stored`, async () => {
      const account = await createSubaccount(t, partner, {
        profileFields: [{ fieldId: 'individualLegalName', value: 'Before' }],
      });
      const before = await snapshot(t);
      const response = await bearerFetch(t, partner.secretKey, 'POST', `/v3/accounts/${account.id}`, {
        profileFields: [{ fieldId: 'individualLegalName', value: 'After' }, bad, GOOD_FIELDS[1]],
      });
      await expectError(response, 400, 'ValidationException', { problematicField: field });
      expect(await snapshot(t)).toEqual(before);
      const read = await expectOk<AccountView>(
        await bearerFetch(t, partner.secretKey, 'GET', `/v3/accounts/${account.id}`),
      );
      expect(fieldOf(read, 'individualLegalName')?.value).toBe('Before');
      expect(fieldOf(read, 'individualEmail')?.status).toBe('OPEN');
    });
  }

  it('a master without subaccount: true creates a non-custodial account it referred (decision 64)', async () => {
    for (const body of [
      { type: 'INDIVIDUAL', country: 'US' },
      { type: 'INDIVIDUAL', country: 'US', subaccount: false },
    ]) {
      const created = await expectOk<AccountView & { subaccount: boolean }>(
        await bearerFetch(t, partner.secretKey, 'POST', '/v3/accounts', body),
      );
      expect(created.subaccount).toBe(false);
      // Not the master's to read: it is the account holder's own.
      expect((await bearerFetch(t, partner.secretKey, 'GET', `/v3/accounts/${created.id}`)).status).toBe(404);
    }
  });

  it("a sub-account's key (minted with masqueradeAs) cannot create sub-accounts: 403, nothing created", async () => {
    const sub = await createSubaccount(t, partner);
    const subKey = await createKey(t, partner, { desc: 'for the sub-account' }, sub.id);
    expect(subKey.owner).toBe(`account:${sub.id}`);
    expect(
      (await expectOk<AccountView>(await bearerFetch(t, subKey.secretKey, 'GET', `/v3/accounts/${sub.id}`)))
        .id,
    ).toBe(sub.id);
    const before = await snapshot(t);
    await expectError(
      await bearerFetch(t, subKey.secretKey, 'POST', '/v3/accounts', {
        type: 'INDIVIDUAL',
        country: 'US',
        subaccount: true,
      }),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it("unknown country 'QQ': 400 naming country; lower-case 'us' too", async () => {
    const before = await snapshot(t);
    for (const country of ['QQ', 'us', 'USA']) {
      await expectError(
        await bearerFetch(t, partner.secretKey, 'POST', '/v3/accounts', {
          type: 'INDIVIDUAL',
          country,
          subaccount: true,
        }),
        400,
        'ValidationException',
        { problematicField: 'country' },
      );
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it("another partner's account by path: 404, the same answer as a nonexistent id; updates too", async () => {
    const theirs = await createSubaccount(t, other);
    const before = await snapshot(t);
    const foreignMaster = await expectError(
      await bearerFetch(t, partner.secretKey, 'GET', `/v3/accounts/${other.accountId}`),
      404,
      'NotFoundException',
    );
    const foreignSub = await expectError(
      await bearerFetch(t, partner.secretKey, 'GET', `/v3/accounts/${theirs.id}`),
      404,
      'NotFoundException',
    );
    const unknown = await expectError(
      await bearerFetch(t, partner.secretKey, 'GET', `/v3/accounts/${unknownId('AC')}`),
      404,
      'NotFoundException',
    );
    expect(sameAnswer(foreignMaster)).toEqual(sameAnswer(unknown));
    expect(sameAnswer(foreignSub)).toEqual(sameAnswer(unknown));
    const update = await expectError(
      await bearerFetch(t, partner.secretKey, 'POST', `/v3/accounts/${theirs.id}`, {
        profileFields: [{ fieldId: 'individualLegalName', value: 'Hijacked' }],
      }),
      404,
      'NotFoundException',
    );
    expect(sameAnswer(update)).toEqual(sameAnswer(unknown));
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('operator account endpoints', () => {
  interface AuditRow {
    action: string;
    target: string | null;
    outcome: string;
    status: number;
    detail: Record<string, unknown>;
  }
  const audit = () =>
    rows<AuditRow>(t, 'SELECT action, target, outcome, status, detail FROM operator_audit ORDER BY id');

  it('POST /operator/v1/accounts returns {accountId, apiKey, secretKey, webhookSecret}, audited', async () => {
    const response = await fetch(`${t.baseUrl}/operator/v1/accounts`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: JSON.stringify({ name: 'Acme Pay', country: 'DE', usersApi: false }),
    });
    const created = await expectOk<{
      accountId: string;
      apiKey: string;
      secretKey: string;
      webhookSecret: string;
    }>(response);
    expect(created).toEqual({
      accountId: expect.stringMatching(ACCOUNT_ID),
      apiKey: expect.stringMatching(API_KEY),
      secretKey: expect.stringMatching(SECRET_KEY),
      webhookSecret: expect.any(String),
    });
    expect(created.webhookSecret.length).toBeGreaterThanOrEqual(32);
    const mine = (await audit()).filter((row) => row.target === `account:${created.accountId}`);
    expect(mine).toEqual([
      {
        action: 'POST /operator/v1/accounts',
        target: `account:${created.accountId}`,
        outcome: 'ok',
        status: 200,
        detail: { name: 'Acme Pay', country: 'DE', usersApi: false },
      },
    ]);
    const [row] = await rows<{ kind: string; status: string; type: string; country: string }>(
      t,
      'SELECT kind, status, type, country FROM accounts WHERE id = $1',
      [created.accountId],
    );
    expect(row).toEqual({ kind: 'master', status: 'APPROVED', type: 'BUSINESS', country: 'DE' });
    // Its first key works, and reads its own account.
    const account = await expectOk<AccountView>(
      await signedFetch(t, created, { path: `/v3/accounts/${created.accountId}` }),
    );
    expect(account).toMatchObject({ id: created.accountId, country: 'DE' });
  });

  it('refuses a bad country and partner credentials, creating nothing', async () => {
    const before = await snapshot(t);
    await expectError(
      await fetch(`${t.baseUrl}/operator/v1/accounts`, {
        method: 'POST',
        headers: operatorHeaders(),
        body: JSON.stringify({ name: 'Nowhere', country: 'QQ' }),
      }),
      400,
      'ValidationException',
      { problematicField: 'country' },
    );
    await expectError(
      await fetch(`${t.baseUrl}/operator/v1/accounts`, {
        method: 'POST',
        headers: operatorHeaders(partner.secretKey),
        body: JSON.stringify({ name: 'Sneaky', country: 'US' }),
      }),
      401,
      'AccessDeniedException',
      { errorCode: 'accessDenied.invalidOperatorToken' },
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('POST /operator/v1/accounts/{id}/users-api {enabled: true}: switched, audited with the target', async () => {
    const target = await createPartner(t, { name: 'Users API candidate' });
    const response = await fetch(`${t.baseUrl}/operator/v1/accounts/${target.accountId}/users-api`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: JSON.stringify({ enabled: true }),
    });
    expect(await expectOk(response)).toEqual({ accountId: target.accountId, usersApi: true });
    const [row] = await rows<{ users_api_enabled: boolean }>(
      t,
      'SELECT users_api_enabled FROM accounts WHERE id = $1',
      [target.accountId],
    );
    expect(row?.users_api_enabled).toBe(true);
    const switched = (await audit()).filter(
      (entry) => entry.action === 'POST /operator/v1/accounts/:accountId/users-api',
    );
    expect(switched).toContainEqual({
      action: 'POST /operator/v1/accounts/:accountId/users-api',
      target: `account:${target.accountId}`,
      outcome: 'ok',
      status: 200,
      detail: { usersApi: true },
    });
    expect(switched.filter((entry) => entry.target === `account:${target.accountId}`)).toHaveLength(1);
  });

  for (const [name, id] of [
    ['an unknown id', unknownId('AC')],
    ['a sub-account id', 'sub'],
  ] as const) {
    it(`users-api for ${name}: 404, nothing changed, audited as rejected`, async () => {
      const accountId = id === 'sub' ? (await createSubaccount(t, partner)).id : id;
      const auditBefore = (await audit()).length;
      const before = await snapshot(t);
      const response = await fetch(`${t.baseUrl}/operator/v1/accounts/${accountId}/users-api`, {
        method: 'POST',
        headers: operatorHeaders(),
        body: JSON.stringify({ enabled: true }),
      });
      await expectError(response, 404, 'NotFoundException');
      expect(await snapshot(t)).toEqual(before);
      // The refusal's audit row is written once the answer is out, so an earlier test's late row
      // may land after it: look for it among the new rows.
      await vi.waitFor(
        async () => {
          const added = (await audit()).slice(auditBefore);
          expect(added).toContainEqual(
            expect.objectContaining({
              action: 'POST /operator/v1/accounts/:accountId/users-api',
              outcome: 'rejected',
              status: 404,
            }),
          );
        },
        { timeout: 10_000, interval: 20 },
      );
    });
  }
});

describe('Idempotency-Key on POST /v3/accounts (sub-accounts)', () => {
  it('same key + same body (new timestamp and signature): the same account, replayed, one row', async () => {
    const body = createBody({ profileFields: [{ fieldId: 'individualLegalName', value: 'Idem Potent' }] });
    const headers = { 'idempotency-key': 'create-sub-0001' };
    const subsBefore = await countRows(t, 'SELECT 1 FROM accounts WHERE parent_id = $1', [partner.accountId]);
    const first = await signedFetch(t, partner, { method: 'POST', path: '/v3/accounts', body, headers });
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const created = await expectOk<AccountView>(first);

    const second = await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/accounts',
      body,
      headers,
      timestamp: Date.now() + 5,
    });
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    const replayed = await expectOk<AccountView>(second);
    expect(replayed.id).toBe(created.id);
    expect(replayed).toEqual(created);
    expect(await countRows(t, 'SELECT 1 FROM accounts WHERE parent_id = $1', [partner.accountId])).toBe(
      subsBefore + 1,
    );
  });

  it('same key + another body: 422, nothing created', async () => {
    const headers = { 'idempotency-key': 'create-sub-0002' };
    await expectOk(
      await signedFetch(t, partner, { method: 'POST', path: '/v3/accounts', body: createBody(), headers }),
    );
    const before = await snapshot(t, ['signature_replays']);
    const response = await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/accounts',
      body: createBody({ country: 'CA' }),
      headers,
    });
    await expectError(response, 422, 'IdempotencyConflictException', { problematicField: 'Idempotency-Key' });
    expect(await snapshot(t, ['signature_replays'])).toEqual(before);
  });

  it('the same key used by another partner is a different key', async () => {
    const headers = { 'idempotency-key': 'create-sub-0001' };
    const theirs = await expectOk<AccountView>(
      await signedFetch(t, other, { method: 'POST', path: '/v3/accounts', body: createBody(), headers }),
    );
    const [row] = await rows<{ parent_id: string }>(t, 'SELECT parent_id FROM accounts WHERE id = $1', [
      theirs.id,
    ]);
    expect(row?.parent_id).toBe(other.accountId);
  });
});
