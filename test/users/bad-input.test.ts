import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { expectError } from '../identity/support.ts';
import {
  asUser,
  createUser,
  operatorCall,
  startUsersApp,
  TRANSFER_FIELDS,
  type UserBody,
  userState,
} from './support.ts';

/**
 * The "Bad input to test": each gets the envelope and leaves the user exactly as before
 * (every table compared, audit trails aside).
 */
let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;
let user: UserBody;

beforeAll(async () => {
  ({ t, partner, other } = await startUsersApp({ env: { RAMPART_SANDBOX_AUTO_APPROVE: 'false' } }));
  user = await createUser(t, partner, { fields: { firstName: 'Ada', email: 'ada@example.com' } });
});
afterAll(async () => t?.close());

const update = (fields: unknown, by = partner, target = user.id) =>
  asUser(t, by, target, 'POST', `/v3/users/${user.id}`, { fields });

async function refusedUnchanged(
  send: () => Promise<Response>,
  status: number,
  type: string,
  extra: { errorCode?: string; problematicField?: string } = {},
) {
  const before = await userState(t);
  await expectError(await send(), status, type, extra);
  expect(await userState(t)).toEqual(before);
}

describe('field values', () => {
  it('an unknown fieldId', () =>
    refusedUnchanged(
      () => update({ lastName: 'Lovelace', favouriteColour: 'blue' }),
      400,
      'ValidationException',
      {
        errorCode: 'validation.unknownField',
        problematicField: 'fields.favouriteColour',
      },
    ));

  for (const [name, fields, field] of [
    ['a number as a name', { firstName: 42 }, 'fields.firstName'],
    ['an object as an e-mail', { email: { at: 'x' } }, 'fields.email'],
    ['an array as an address', { residenceAddress: ['1 Market St'] }, 'fields.residenceAddress'],
    ['a string as an address', { residenceAddress: '1 Market St' }, 'fields.residenceAddress'],
    ['an empty name', { lastName: '   ' }, 'fields.lastName'],
    ['a malformed e-mail', { email: 'not-an-address' }, 'fields.email'],
  ] as const) {
    it(`wrong type: ${name}`, () =>
      refusedUnchanged(() => update({ lastName: 'Lovelace', ...fields }), 400, 'ValidationException', {
        problematicField: field,
      }));
  }

  it('a 1 MB string', () =>
    refusedUnchanged(() => update({ lastName: 'x'.repeat(1_000_000) }), 400, 'ValidationException', {
      problematicField: 'fields.lastName',
    }));

  for (const date of ['2023-02-30', '1990-13-01', '1990-1-1', '01/02/1990', '2999-01-01']) {
    it(`dateOfBirth ${date}`, () =>
      refusedUnchanged(
        () => update({ lastName: 'Lovelace', dateOfBirth: date }),
        400,
        'ValidationException',
        {
          problematicField: 'fields.dateOfBirth',
        },
      ));
  }

  it('a dateOfBirth under 18 years ago', () => {
    const now = new Date();
    const young = `${now.getUTCFullYear() - 17}-01-01`;
    return refusedUnchanged(() => update({ dateOfBirth: young }), 400, 'ValidationException', {
      problematicField: 'fields.dateOfBirth',
    });
  });

  for (const phone of ['16508155122', '+1650815512', '+1 650 815 5122', '+999123456789']) {
    it(`cellphone ${phone}`, () =>
      refusedUnchanged(() => update({ lastName: 'Lovelace', cellphone: phone }), 400, 'ValidationException', {
        problematicField: 'fields.cellphone',
      }));
  }

  it('an address without country', () => {
    const { country: _dropped, ...address } = TRANSFER_FIELDS.residenceAddress;
    return refusedUnchanged(() => update({ residenceAddress: address }), 400, 'ValidationException', {
      problematicField: 'fields.residenceAddress.country',
    });
  });

  it('an address with an unknown country code', () =>
    refusedUnchanged(
      () => update({ residenceAddress: { ...TRANSFER_FIELDS.residenceAddress, country: 'XX' } }),
      400,
      'ValidationException',
      { problematicField: 'fields.residenceAddress.country' },
    ));

  it('a document field sent as a value', () =>
    refusedUnchanged(() => update({ governmentIdFront: 'passport.pdf' }), 400, 'ValidationException', {
      problematicField: 'fields.governmentIdFront',
    }));
});

describe('scopes and access', () => {
  it('scopes that do not exist (update)', () =>
    refusedUnchanged(
      () => asUser(t, partner, user.id, 'POST', `/v3/users/${user.id}`, { scopes: ['TRANSFER', 'ROOT'] }),
      400,
      'ValidationException',
      { problematicField: 'scopes[1]' },
    ));

  it('scopes that do not exist (create): nothing is created', () =>
    refusedUnchanged(
      () =>
        signedFetch(t, partner, {
          method: 'POST',
          path: '/v3/users',
          body: JSON.stringify({ fields: { firstName: 'Eve' }, scopes: ['WIRE'] }),
        }),
      400,
      'ValidationException',
      { problematicField: 'scopes[0]' },
    ));

  it("masquerading as another partner's user", () =>
    refusedUnchanged(() => update({ lastName: 'Hijack' }, other), 403, 'AccessDeniedException', {
      errorCode: 'accessDenied.forbidden',
    }));

  it('updating a CLOSED user', async () => {
    const closed = await createUser(t, partner, { fields: TRANSFER_FIELDS });
    const decision = await operatorCall(t, 'POST', `/operator/v1/users/${closed.id}/scopes/TRANSFER/review`, {
      decision: 'CLOSE',
    });
    expect(decision.status).toBe(200);
    await refusedUnchanged(
      () =>
        asUser(t, partner, closed.id, 'POST', `/v3/users/${closed.id}`, {
          fields: { email: 'new@example.com' },
        }),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.userClosed' },
    );
  });
});
