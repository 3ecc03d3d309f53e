import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { expectError, expectOk } from '../identity/support.ts';
import {
  asUser,
  createUser,
  operatorCall,
  readUser,
  startUsersApp,
  TRANSFER_FIELDS,
  USER_ID,
  type UserBody,
  userState,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner, other } = await startUsersApp({ env: { RAMPART_SANDBOX_AUTO_APPROVE: 'false' } }));
});
afterAll(async () => t?.close());

describe('POST /v3/users', () => {
  it('creates an OPEN user with the TRANSFER scope by default, in the User shape of API.md', async () => {
    const user = await createUser(t, partner, { fields: { firstName: 'Ada', email: 'ada@example.com' } });
    expect(user.id).toMatch(USER_ID);
    expect(user).toMatchObject({
      status: 'OPEN',
      partnerId: `PT_${partner.accountId.slice(3)}`,
      type: 'INDIVIDUAL',
      // Every chain sandbox has a backend for (docs/contract.md, decision 66).
      depositAddresses: {
        AVAX: expect.any(String),
        BTC: expect.any(String),
        ETH: expect.any(String),
        MATIC: expect.any(String),
      },
      totalBalances: {},
      availableBalances: {},
    });
    expect(typeof user.createdAt).toBe('number');
    expect(user.fields.firstName).toEqual({ value: 'Ada', status: 'SUBMITTED', error: null });
    expect(user.fields.email).toEqual({ value: 'ada@example.com', status: 'SUBMITTED', error: null });
    expect(user.fields.lastName).toEqual({ value: null, status: 'OPEN', error: null });
    expect(Object.keys(user.scopes)).toEqual(['TRANSFER']);
    expect(user.scopes.TRANSFER).toMatchObject({
      status: 'OPEN',
      openFields: ['lastName', 'dateOfBirth', 'residenceAddress'],
    });
  });

  it('moves TRANSFER to PENDING when every required field is submitted (no auto-approve here)', async () => {
    const user = await createUser(t, partner, { fields: TRANSFER_FIELDS, immediate: true });
    expect(user.status).toBe('PENDING');
    expect(user.scopes.TRANSFER).toMatchObject({ status: 'PENDING', openFields: [] });
    const history = await t.database.db.query(
      'SELECT scope, from_status, to_status, cause FROM user_scope_events WHERE user_id = $1 ORDER BY id',
      [user.id],
    );
    expect(history.rows).toEqual([
      { scope: 'TRANSFER', from_status: null, to_status: 'OPEN', cause: 'user.created' },
      { scope: 'TRANSFER', from_status: 'OPEN', to_status: 'PENDING', cause: 'user.created' },
    ]);
  });

  it('is refused with 403 when the Users API is off, and nothing is created', async () => {
    const off = await createPartner(t, { usersApi: false, name: 'No users' });
    const before = await userState(t);
    const response = await signedFetch(t, off, { method: 'POST', path: '/v3/users', body: '{}' });
    await expectError(response, 403, 'AccessDeniedException', { errorCode: 'accessDenied.forbidden' });
    expect(await userState(t)).toEqual(before);
  });

  it('follows the operator switch: off → 403, on → 200', async () => {
    const partnerX = await createPartner(t, { usersApi: true, name: 'Switch' });
    const off = await operatorCall(t, 'POST', `/operator/v1/accounts/${partnerX.accountId}/users-api`, {
      enabled: false,
    });
    expect(off.status).toBe(200);
    await expectError(
      await signedFetch(t, partnerX, { method: 'POST', path: '/v3/users', body: '{}' }),
      403,
      'AccessDeniedException',
    );
    await operatorCall(t, 'POST', `/operator/v1/accounts/${partnerX.accountId}/users-api`, { enabled: true });
    await createUser(t, partnerX, {});
  });
});

describe('GET /v3/users/{id}', () => {
  let user: UserBody;
  beforeAll(async () => {
    user = await createUser(t, partner, {
      fields: { firstName: 'Grace' },
      scopes: ['TRANSFER', 'DEBIT_CARD_L2'],
    });
  });

  it('without scopes= shows every field and every scope the user holds', async () => {
    const read = await readUser(t, partner, user.id);
    expect(Object.keys(read.fields).sort()).toEqual(
      [
        'cellphone',
        'dateOfBirth',
        'email',
        'firstName',
        'governmentIdBack',
        'governmentIdFront',
        'lastName',
        'residenceAddress',
      ].sort(),
    );
    expect(Object.keys(read.scopes)).toEqual(['TRANSFER', 'DEBIT_CARD_L2']);
    expect(read.scopes.DEBIT_CARD_L2).toMatchObject({ status: 'OPEN', onboardingRequired: true });
  });

  it('with scopes=TRANSFER lists only the fields TRANSFER requires, OPEN or SUBMITTED', async () => {
    const read = await readUser(t, partner, user.id, 'TRANSFER');
    expect(read.fields).toEqual({
      firstName: { value: 'Grace', status: 'SUBMITTED', error: null },
      lastName: { value: null, status: 'OPEN', error: null },
      dateOfBirth: { value: null, status: 'OPEN', error: null },
      residenceAddress: { value: null, status: 'OPEN', error: null },
    });
    expect(Object.keys(read.scopes)).toEqual(['TRANSFER']);
  });

  it('accepts several scopes, comma-separated, including one the user does not hold yet', async () => {
    const read = await readUser(t, partner, user.id, 'TRANSFER,ACH');
    expect(Object.keys(read.scopes)).toEqual(['TRANSFER', 'ACH']);
    expect(read.scopes.ACH).toMatchObject({
      status: 'OPEN',
      onboardingRequired: true,
      paymentMethodRequired: true,
    });
  });

  it('refuses a scope that does not exist with a ValidationException', async () => {
    const response = await asUser(
      t,
      partner,
      user.id,
      'GET',
      `/v3/users/${user.id}?scopes=TRANSFER,SUPERUSER`,
    );
    await expectError(response, 400, 'ValidationException', { problematicField: 'scopes' });
  });

  it('answers 20 concurrent reads of 20 users (read together) each with its own user and balances', async () => {
    const users = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createUser(t, partner, { fields: { firstName: `Reader${i}` } })),
    );
    // Give every other user a balance of its own, so a mix-up would show.
    for (const [i, each] of users.entries()) {
      if (i % 2) continue;
      const response = await operatorCall(t, 'POST', '/operator/v1/ledger/credits', {
        owner: `user:${each.id}`,
        currency: 'USD',
        amount: `${i + 1}.25`,
      });
      expect(response.status).toBe(200);
    }
    const reads = await Promise.all(users.map((each) => readUser(t, partner, each.id)));
    reads.forEach((read, i) => {
      expect(read.id).toBe(users[i]!.id);
      expect(read.fields.firstName?.value).toBe(`Reader${i}`);
      expect(read.totalBalances).toEqual(i % 2 ? {} : { USD: i + 1.25 });
    });
  });

  it('needs masqueradeAs of the same user', async () => {
    const bare = await signedFetch(t, partner, { path: `/v3/users/${user.id}` });
    await expectError(bare, 403, 'AccessDeniedException');
    const otherUser = await createUser(t, partner, {});
    const crossed = await asUser(t, partner, otherUser.id, 'GET', `/v3/users/${user.id}`);
    await expectError(crossed, 403, 'AccessDeniedException');
  });

  it("answers another partner's user and an unknown user with the same 403", async () => {
    const foreign = await asUser(t, other, user.id, 'GET', `/v3/users/${user.id}`);
    const unknownId = 'US_ZZZZ2222222';
    const unknown = await asUser(t, other, unknownId, 'GET', `/v3/users/${unknownId}`);
    const a = await expectError(foreign, 403, 'AccessDeniedException');
    const b = await expectError(unknown, 403, 'AccessDeniedException');
    expect({ ...a, exceptionId: '' }).toEqual({ ...b, exceptionId: '' });
  });
});

describe('POST /v3/users/{id}', () => {
  it('submits fields and follows the approval procedure of spec §3.1 to PENDING', async () => {
    const user = await createUser(t, partner, {});
    const response = await asUser(t, partner, user.id, 'POST', `/v3/users/${user.id}`, {
      fields: { firstName: 'Ada', lastName: 'Lovelace' },
    });
    const updated = await expectOk<UserBody>(response);
    expect(updated.scopes.TRANSFER?.openFields).toEqual(['dateOfBirth', 'residenceAddress']);
    const view = await readUser(t, partner, user.id, 'TRANSFER');
    const open = Object.entries(view.fields)
      .filter(([, f]) => f.status === 'OPEN')
      .map(([id]) => id);
    const rest = Object.fromEntries(
      open.map((id) => [id, TRANSFER_FIELDS[id as keyof typeof TRANSFER_FIELDS]]),
    );
    const done = await expectOk<UserBody>(
      await asUser(t, partner, user.id, 'POST', `/v3/users/${user.id}`, { fields: rest }),
    );
    expect(done.status).toBe('PENDING');
    expect(done.fields.residenceAddress?.value).toEqual(TRANSFER_FIELDS.residenceAddress);
  });

  it('normalises a phone number to E.164 with a real numbering-plan check', async () => {
    const user = await createUser(t, partner, { fields: { cellphone: '+16508155122' } });
    expect(user.fields.cellphone?.value).toBe('+16508155122');
  });

  it('keeps fields under review locked', async () => {
    const user = await createUser(t, partner, { fields: TRANSFER_FIELDS });
    expect(user.scopes.TRANSFER?.status).toBe('PENDING');
    const before = await userState(t);
    const response = await asUser(t, partner, user.id, 'POST', `/v3/users/${user.id}`, {
      fields: { lastName: 'Changed' },
    });
    await expectError(response, 400, 'ValidationException', {
      errorCode: 'validation.fieldLocked',
      problematicField: 'fields.lastName',
    });
    expect(await userState(t)).toEqual(before);
  });
});
