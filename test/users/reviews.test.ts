import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { expectError, expectOk } from '../identity/support.ts';
import {
  asUser,
  createUser,
  operatorCall,
  readUser,
  startUsersApp,
  TRANSFER_FIELDS,
  type UserBody,
  userState,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startUsersApp({ env: { RAMPART_SANDBOX_AUTO_APPROVE: 'false' } }));
});
afterAll(async () => t?.close());

const review = (userId: string, scope: string, body: unknown) =>
  operatorCall(t, 'POST', `/operator/v1/users/${userId}/scopes/${scope}/review`, body);

async function events(userId: string) {
  const { rows } = await t.database.db.query(
    'SELECT scope, from_status, to_status, cause FROM user_scope_events WHERE user_id = $1 ORDER BY id',
    [userId],
  );
  return rows;
}

describe('operator review', () => {
  let pending: UserBody;
  beforeAll(async () => {
    pending = await createUser(t, partner, { fields: TRANSFER_FIELDS });
  });

  it('lists PENDING scopes with the fields the scope requires', async () => {
    const list = await expectOk<{ data: Record<string, unknown>[] }>(
      await operatorCall(t, 'GET', '/operator/v1/reviews?status=PENDING'),
    );
    const item = list.data.find((entry) => entry.userId === pending.id);
    expect(item).toMatchObject({ userId: pending.id, scope: 'TRANSFER', status: 'PENDING' });
    expect(typeof item?.submittedAt).toBe('number');
    expect(Object.keys(item?.fields as object)).toEqual([
      'firstName',
      'lastName',
      'dateOfBirth',
      'residenceAddress',
    ]);
  });

  it('RETURN sends the scope back to OPEN with per-field errors; resubmitting makes it PENDING again', async () => {
    const returned = await review(pending.id, 'TRANSFER', {
      decision: 'RETURN',
      fieldErrors: { dateOfBirth: 'Does not match the ID document.' },
    });
    expect(await expectOk(returned)).toEqual({ userId: pending.id, scopes: { TRANSFER: 'OPEN' } });
    const view = await readUser(t, partner, pending.id, 'TRANSFER');
    expect(view.status).toBe('OPEN');
    expect(view.fields.dateOfBirth).toEqual({
      value: '1990-01-01',
      status: 'OPEN',
      error: 'Does not match the ID document.',
    });
    expect(view.scopes.TRANSFER?.openFields).toEqual(['dateOfBirth']);
    const fixed = await expectOk<UserBody>(
      await asUser(t, partner, pending.id, 'POST', `/v3/users/${pending.id}`, {
        fields: { dateOfBirth: '1990-01-02' },
      }),
    );
    expect(fixed.scopes.TRANSFER?.status).toBe('PENDING');
    expect(fixed.fields.dateOfBirth).toEqual({ value: '1990-01-02', status: 'SUBMITTED', error: null });
  });

  it('APPROVE makes the scope and the user APPROVED; every transition is in the history with its cause', async () => {
    await expectOk(await review(pending.id, 'TRANSFER', { decision: 'APPROVE' }));
    expect((await readUser(t, partner, pending.id)).status).toBe('APPROVED');
    expect(await events(pending.id)).toEqual([
      { scope: 'TRANSFER', from_status: null, to_status: 'OPEN', cause: 'user.created' },
      { scope: 'TRANSFER', from_status: 'OPEN', to_status: 'PENDING', cause: 'user.created' },
      { scope: 'TRANSFER', from_status: 'PENDING', to_status: 'OPEN', cause: 'operator.return' },
      { scope: 'TRANSFER', from_status: 'OPEN', to_status: 'PENDING', cause: 'user.updated' },
      { scope: 'TRANSFER', from_status: 'PENDING', to_status: 'APPROVED', cause: 'operator.approve' },
    ]);
    const { rows } = await t.database.db.query(
      "SELECT target, outcome FROM operator_audit WHERE action LIKE 'POST /operator/v1/users/%' ORDER BY id",
    );
    expect(rows).toEqual([
      { target: `user:${pending.id}`, outcome: 'ok' },
      { target: `user:${pending.id}`, outcome: 'ok' },
    ]);
  });

  it('refuses to decide a scope that is not PENDING, changing nothing', async () => {
    const before = await userState(t);
    await expectError(
      await review(pending.id, 'TRANSFER', { decision: 'APPROVE' }),
      400,
      'ValidationException',
      {
        errorCode: 'validation.scopeNotPending',
      },
    );
    expect(await userState(t)).toEqual(before);
  });

  it('RETURN without field errors, or naming a field the scope does not need, is refused', async () => {
    const other = await createUser(t, partner, { fields: TRANSFER_FIELDS });
    const before = await userState(t);
    await expectError(
      await review(other.id, 'TRANSFER', { decision: 'RETURN' }),
      400,
      'FieldRequiredException',
    );
    await expectError(
      await review(other.id, 'TRANSFER', { decision: 'RETURN', fieldErrors: { email: 'x' } }),
      400,
      'ValidationException',
      { problematicField: 'fieldErrors.email' },
    );
    expect(await userState(t)).toEqual(before);
  });

  it('unknown users and scopes are 404; a bad decision is 400; no operator token is 401', async () => {
    await expectError(
      await review('US_ZZZZ2222222', 'TRANSFER', { decision: 'APPROVE' }),
      404,
      'NotFoundException',
    );
    await expectError(await review(pending.id, 'WIRE', { decision: 'APPROVE' }), 404, 'NotFoundException');
    await expectError(
      await review(pending.id, 'TRANSFER', { decision: 'MAYBE' }),
      400,
      'ValidationException',
    );
    const anonymous = await fetch(`${t.baseUrl}/operator/v1/reviews`);
    await expectError(anonymous, 401, 'AccessDeniedException');
  });

  it('CLOSE is final: every scope CLOSED, the user CLOSED, no further review or update', async () => {
    const user = await createUser(t, partner, {
      fields: TRANSFER_FIELDS,
      scopes: ['TRANSFER', 'DEBIT_CARD_L2'],
    });
    await expectOk(await review(user.id, 'TRANSFER', { decision: 'CLOSE' }));
    const read = await readUser(t, partner, user.id);
    expect(read.status).toBe('CLOSED');
    expect(read.scopes.TRANSFER?.status).toBe('CLOSED');
    expect(read.scopes.DEBIT_CARD_L2?.status).toBe('CLOSED');
    await expectError(await review(user.id, 'TRANSFER', { decision: 'APPROVE' }), 400, 'ValidationException');
  });

  it('DEBIT_CARD_L2 waits for TRANSFER: approving it first is refused', async () => {
    const user = await createUser(t, partner, {
      fields: TRANSFER_FIELDS,
      scopes: ['TRANSFER', 'DEBIT_CARD_L2'],
    });
    await t.database.db.query("UPDATE users SET onboarding_status = 'SUBMITTED' WHERE id = $1", [user.id]);
    await expectOk(await asUser(t, partner, user.id, 'POST', `/v3/users/${user.id}`, { fields: {} }));
    expect((await readUser(t, partner, user.id)).scopes.DEBIT_CARD_L2?.status).toBe('PENDING');
    await expectError(
      await review(user.id, 'DEBIT_CARD_L2', { decision: 'APPROVE' }),
      400,
      'ValidationException',
      {
        errorCode: 'validation.transferScopeNotApproved',
      },
    );
    await expectOk(await review(user.id, 'TRANSFER', { decision: 'APPROVE' }));
    await expectOk(await review(user.id, 'DEBIT_CARD_L2', { decision: 'APPROVE' }));
    const read = await readUser(t, partner, user.id);
    expect(read.status).toBe('APPROVED');
    expect(read.scopes.DEBIT_CARD_L2).toMatchObject({ status: 'APPROVED', onboardingStatus: 'COMPLETE' });
  });
});

describe('sandbox auto-approval (API.md decision 8)', () => {
  it('is on by default in sandbox: complete data is APPROVED at once, recorded as such', async () => {
    const auto = await startUsersApp();
    try {
      const user = await createUser(auto.t, auto.partner, { fields: TRANSFER_FIELDS });
      expect(user.status).toBe('APPROVED');
      const { rows } = await auto.t.database.db.query(
        'SELECT to_status, cause FROM user_scope_events WHERE user_id = $1 ORDER BY id',
        [user.id],
      );
      expect(rows.map((row) => `${row.to_status}:${row.cause}`)).toEqual([
        'OPEN:user.created',
        'PENDING:user.created',
        'APPROVED:sandbox.autoApprove',
      ]);
    } finally {
      await auto.t.close();
    }
  });
});
