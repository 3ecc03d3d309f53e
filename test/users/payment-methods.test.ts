import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAbaRoutingNumber } from '../../src/users/bank-account.ts';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { expectError, expectOk } from '../identity/support.ts';
import {
  asUser,
  createUser,
  readUser,
  runUserJobs,
  startUsersApp,
  TRANSFER_FIELDS,
  US_BANK_ACCOUNT,
  type UserBody,
  userState,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner, other } = await startUsersApp());
});
afterAll(async () => t?.close());

interface PaymentMethodBody {
  id: string;
  status: string;
  last4Digits: string;
  owner: string;
  srn: string;
  linkType: string;
  rejectionMessage: string | null;
}

const create = (userId: string, body: unknown = US_BANK_ACCOUNT, by = partner) =>
  asUser(t, by, userId, 'POST', '/v2/paymentMethods', body);

it('ABA check digits', () => {
  expect(isAbaRoutingNumber('021000021')).toBe(true);
  expect(isAbaRoutingNumber('011000015')).toBe(true);
  expect(isAbaRoutingNumber('021000022')).toBe(false);
  expect(isAbaRoutingNumber('02100002')).toBe(false);
  expect(isAbaRoutingNumber('990000001')).toBe(false);
});

describe('LOCAL_TRANSFER payment methods', () => {
  let user: UserBody;
  let method: PaymentMethodBody;

  beforeAll(async () => {
    user = await createUser(t, partner, { fields: TRANSFER_FIELDS, scopes: ['TRANSFER', 'ACH'] });
  });

  it('are created PENDING, shown with the last 4 digits only; the number is sealed at rest', async () => {
    method = await expectOk<PaymentMethodBody>(await create(user.id));
    expect(method).toMatchObject({
      status: 'PENDING',
      last4Digits: '6789',
      owner: `user:${user.id}`,
      linkType: 'LOCAL_TRANSFER',
      srn: `paymentmethod:${method.id}`,
    });
    expect(method.id).toMatch(/^PA_[2-9A-HJ-NP-Z]{11}$/);
    expect(JSON.stringify(method)).not.toContain('000123456789');
    const { rows } = await t.database.db.query(
      'SELECT account_number_sealed FROM payment_methods WHERE id = $1',
      [method.id],
    );
    expect(Buffer.from(rows[0].account_number_sealed).includes(Buffer.from('123456789'))).toBe(false);
  });

  it('become ACTIVE after the simulated verification, which completes the ACH scope once onboarding is done', async () => {
    expect(await runUserJobs(t)).toBe(1);
    const read = await expectOk<PaymentMethodBody>(
      await asUser(t, partner, user.id, 'GET', `/v2/paymentMethod/${method.id}`),
    );
    expect(read.status).toBe('ACTIVE');
    const view = await readUser(t, partner, user.id, 'ACH');
    expect(view.scopes.ACH).toMatchObject({
      status: 'OPEN',
      paymentMethodRequired: false,
      onboardingRequired: true,
    });
    const link = await expectOk<{ verificationLinkUrl: string }>(
      await asUser(t, partner, user.id, 'GET', `/v3/users/${user.id}/onboarding`),
    );
    const path = new URL(link.verificationLinkUrl).pathname;
    const submitted = await fetch(`${t.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(submitted.status).toBe(200);
    const after = await readUser(t, partner, user.id);
    expect(after.scopes.ACH?.status).toBe('APPROVED');
    expect(after.status).toBe('APPROVED');
  });

  it('the documented test account number 000111111113 is REJECTED', async () => {
    const rejected = await expectOk<PaymentMethodBody>(
      await create(user.id, { ...US_BANK_ACCOUNT, accountNumber: '000111111113' }),
    );
    await runUserJobs(t);
    const read = await expectOk<PaymentMethodBody>(
      await asUser(t, partner, user.id, 'GET', `/v2/paymentMethod/${rejected.id}`),
    );
    expect(read).toMatchObject({ status: 'REJECTED', last4Digits: '1113' });
    expect(read.rejectionMessage).toMatch(/closed/);
  });

  it('are listed, and deleted (disabled)', async () => {
    const list = await expectOk<{ data: PaymentMethodBody[]; recordsTotal: number }>(
      await asUser(t, partner, user.id, 'GET', '/v2/paymentMethods'),
    );
    expect(list.recordsTotal).toBe(2);
    expect(list.data.map((pm) => pm.id)).toContain(method.id);
    const deleted = await expectOk<PaymentMethodBody>(
      await asUser(t, partner, user.id, 'DELETE', `/v2/paymentMethod/${method.id}`),
    );
    expect(deleted.status).toBe('DISABLED');
    await expectError(
      await asUser(t, partner, user.id, 'GET', `/v2/paymentMethod/${method.id}`),
      404,
      'NotFoundException',
    );
  });

  it("are invisible to another user and refused to another partner's masquerade", async () => {
    const second = await createUser(t, partner, {});
    await expectError(
      await asUser(t, partner, second.id, 'GET', `/v2/paymentMethod/${method.id}`),
      404,
      'NotFoundException',
    );
    await expectError(
      await asUser(t, other, user.id, 'GET', '/v2/paymentMethods'),
      403,
      'AccessDeniedException',
    );
  });
});

describe('refused payment methods change nothing', () => {
  let user: UserBody;
  beforeAll(async () => {
    user = await createUser(t, partner, {});
  });
  for (const [name, body, field] of [
    [
      'a routing number with a bad check digit',
      { ...US_BANK_ACCOUNT, routingNumber: '021000022' },
      'routingNumber',
    ],
    ['letters in the account number', { ...US_BANK_ACCOUNT, accountNumber: '12ab5678' }, 'accountNumber'],
    ['a non-US bank', { ...US_BANK_ACCOUNT, country: 'GB' }, 'country'],
    [
      'a payment method type Wyre never had',
      { ...US_BANK_ACCOUNT, paymentMethodType: 'SEPA_TRANSFER' },
      'paymentMethodType',
    ],
    ['a wrong account type', { ...US_BANK_ACCOUNT, accountType: 'BROKERAGE' }, 'accountType'],
  ] as const) {
    it(name, async () => {
      const before = await userState(t);
      await expectError(await create(user.id, body), 400, 'ValidationException', { problematicField: field });
      expect(await userState(t)).toEqual(before);
    });
  }
});
