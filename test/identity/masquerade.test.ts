import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  type AccountView,
  createKey,
  createSubaccount,
  expectError,
  expectOk,
  rows,
  sameAnswer,
  snapshot,
  startIdentityApp,
  unknownId,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;
let sub: AccountView;
let sibling: AccountView;
let foreignSub: AccountView;

beforeAll(async () => {
  t = await startIdentityApp();
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
  sub = await createSubaccount(t, partner);
  sibling = await createSubaccount(t, partner);
  foreignSub = await createSubaccount(t, other);
});
afterAll(async () => t?.close());

interface AuditRow {
  api_key: string;
  account_id: string;
  target: string;
  method: string;
  route: string;
  outcome: string;
}
const auditRows = () =>
  rows<AuditRow & { id: string }>(
    t,
    'SELECT id, api_key, account_id, target, method, route, outcome FROM access_audit ORDER BY id',
  );
async function auditSince(count: number): Promise<AuditRow[]> {
  return (await auditRows()).slice(count).map(({ id: _id, ...row }) => row);
}

const q = (value: string) => encodeURIComponent(value);

describe('allowed masquerading', () => {
  for (const [name, value] of [
    ['a bare account id', () => sub.id],
    ['an account: SRN', () => `account:${sub.id}`],
  ] as const) {
    it(`${name} acts as the sub-account, audited 'allowed'`, async () => {
      const count = (await auditRows()).length;
      const target = value();
      const account = await expectOk<AccountView>(
        await signedFetch(t, partner, { path: `/v3/accounts/${sub.id}?masqueradeAs=${q(target)}` }),
      );
      expect(account.id).toBe(sub.id);
      expect(await auditSince(count)).toEqual([
        {
          api_key: partner.apiKey,
          account_id: partner.accountId,
          target,
          method: 'GET',
          route: '/v3/accounts/:accountId',
          outcome: 'allowed',
        },
      ]);
    });
  }

  it('a masqueraded write (profile update) lands on the sub-account and is audited', async () => {
    const count = (await auditRows()).length;
    const updated = await expectOk<AccountView>(
      await signedFetch(t, partner, {
        method: 'POST',
        path: `/v3/accounts/${sub.id}?masqueradeAs=${sub.id}`,
        body: JSON.stringify({ profileFields: [{ fieldId: 'individualLegalName', value: 'Masked Writer' }] }),
      }),
    );
    expect(updated.profileFields).toContainEqual(
      expect.objectContaining({ fieldId: 'individualLegalName', value: 'Masked Writer' }),
    );
    expect(await auditSince(count)).toEqual([
      expect.objectContaining({
        method: 'POST',
        route: '/v3/accounts/:accountId',
        outcome: 'allowed',
        target: sub.id,
      }),
    ]);
  });

  it('no audit row, no answer: when the row cannot be written, a read answers the error and a write does nothing', async () => {
    // Refuse every audit insert for the length of this test.
    await t.database.db.query(`
      CREATE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit refused by the test'; END $$;
      CREATE TRIGGER test_refuse_audit BEFORE INSERT ON access_audit
        FOR EACH STATEMENT EXECUTE FUNCTION test_refuse_audit();`);
    try {
      const read = await signedFetch(t, partner, { path: `/v3/accounts/${sub.id}?masqueradeAs=${sub.id}` });
      const text = await read.text();
      expect(read.status, text).toBe(500);
      expect(text).not.toContain(sub.id);
      // The write's signature is recorded (a replay must still fail); nothing else may change.
      const before = await snapshot(t, ['signature_replays']);
      const write = await signedFetch(t, partner, {
        method: 'POST',
        path: `/v3/accounts/${sub.id}?masqueradeAs=${sub.id}`,
        body: JSON.stringify({
          profileFields: [{ fieldId: 'individualLegalName', value: 'Unaudited Writer' }],
        }),
      });
      expect(write.status).toBe(500);
      expect(await snapshot(t, ['signature_replays'])).toEqual(before);
    } finally {
      await t.database.db.query(
        'DROP TRIGGER test_refuse_audit ON access_audit; DROP FUNCTION test_refuse_audit();',
      );
    }
  });

  it('keys minted while masquerading belong to the sub-account', async () => {
    const key = await createKey(t, partner, { desc: 'minted for sub' }, `account:${sub.id}`);
    expect(key.owner).toBe(`account:${sub.id}`);
    const [row] = await rows<{ account_id: string; partner_id: string }>(
      t,
      'SELECT account_id, partner_id FROM api_keys WHERE api_key = $1',
      [key.apiKey],
    );
    expect(row).toEqual({ account_id: sub.id, partner_id: partner.accountId });
  });

  it('a sub-account masqueraded as cannot see its parent master or its sibling (404)', async () => {
    const count = (await auditRows()).length;
    const parent = await expectError(
      await signedFetch(t, partner, { path: `/v3/accounts/${partner.accountId}?masqueradeAs=${sub.id}` }),
      404,
      'NotFoundException',
    );
    const siblingAnswer = await expectError(
      await signedFetch(t, partner, { path: `/v3/accounts/${sibling.id}?masqueradeAs=${sub.id}` }),
      404,
      'NotFoundException',
    );
    expect(sameAnswer(parent)).toEqual(sameAnswer(siblingAnswer));
    expect((await auditSince(count)).map((row) => row.outcome)).toEqual(['allowed', 'allowed']);
  });

  it("a sub-account's own key cannot reach its master, directly or by masquerading", async () => {
    const subKey = await createKey(t, partner, { desc: 'sub key' }, sub.id);
    await expectError(
      await bearerFetch(t, subKey.secretKey, 'GET', `/v3/accounts/${partner.accountId}`),
      404,
      'NotFoundException',
    );
    await expectError(
      await bearerFetch(
        t,
        subKey.secretKey,
        'GET',
        `/v3/accounts/${partner.accountId}?masqueradeAs=${partner.accountId}`,
      ),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
    await expectError(
      await bearerFetch(t, subKey.secretKey, 'GET', `/v3/accounts/${sibling.id}?masqueradeAs=${sibling.id}`),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
  });
});

describe('refused masquerading: 403 accessDenied.forbidden, one answer for all, audited as denied', () => {
  const refused: [string, () => string][] = [
    ["another partner's sub-account", () => foreignSub.id],
    ["another partner's master", () => `account:${other.accountId}`],
    ['a nonexistent AC id', () => unknownId('AC')],
    ['user: on an account id', () => `user:${sub.id}`],
    ['a bare US_ value', () => unknownId('US')],
    ['transfer:TF_…', () => `transfer:${unknownId('TF')}`],
    ['a malformed id', () => 'AC_lowercase!'],
  ];
  let reference: ReturnType<typeof sameAnswer> | undefined;

  for (const [name, value] of refused) {
    for (const scheme of ['bearer', 'signature'] as const) {
      it(`${name} (${scheme})`, async () => {
        const target = value();
        const count = (await auditRows()).length;
        const ignore = scheme === 'signature' ? ['access_audit', 'signature_replays'] : ['access_audit'];
        const before = await snapshot(t, ignore);
        const path = `/v3/accounts/${sub.id}?masqueradeAs=${q(target)}`;
        const response =
          scheme === 'bearer'
            ? await bearerFetch(t, partner.secretKey, 'GET', path)
            : await signedFetch(t, partner, { path });
        const body = await expectError(response, 403, 'AccessDeniedException', {
          errorCode: 'accessDenied.forbidden',
        });
        expect(JSON.stringify(body)).not.toContain(target.replace(/^\w+:/, ''));
        reference ??= sameAnswer(body);
        expect(sameAnswer(body)).toEqual(reference);
        expect(await snapshot(t, ignore)).toEqual(before);
        expect(await auditSince(count)).toEqual([
          {
            api_key: partner.apiKey,
            account_id: partner.accountId,
            target,
            method: 'GET',
            route: '/v3/accounts/:accountId',
            outcome: 'denied',
          },
        ]);
      });
    }
  }

  it('a refused masqueraded write changes nothing but the audit', async () => {
    const count = (await auditRows()).length;
    const before = await snapshot(t, ['access_audit']);
    await expectError(
      await bearerFetch(t, partner.secretKey, 'POST', `/v2/apiKeys?masqueradeAs=${foreignSub.id}`, {
        desc: 'for someone else',
      }),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
    await expectError(
      await bearerFetch(
        t,
        partner.secretKey,
        'POST',
        `/v3/accounts/${foreignSub.id}?masqueradeAs=${foreignSub.id}`,
        {
          profileFields: [{ fieldId: 'individualLegalName', value: 'Hijacked' }],
        },
      ),
      403,
      'AccessDeniedException',
      { errorCode: 'accessDenied.forbidden' },
    );
    expect(await snapshot(t, ['access_audit'])).toEqual(before);
    expect((await auditSince(count)).map((row) => [row.method, row.route, row.outcome])).toEqual([
      ['POST', '/v2/apiKeys', 'denied'],
      ['POST', '/v3/accounts/:accountId', 'denied'],
    ]);
  });
});

describe('malformed masqueradeAs: 400, nothing changed', () => {
  for (const [name, query] of [
    ['masqueradeAs twice', () => `masqueradeAs=${sub.id}&masqueradeAs=${sub.id}`],
    ['an empty masqueradeAs', () => 'masqueradeAs='],
    ['a masqueradeAs longer than 64 characters', () => `masqueradeAs=account:${'A'.repeat(80)}`],
  ] as const) {
    it(name, async () => {
      const before = await snapshot(t);
      const response = await bearerFetch(t, partner.secretKey, 'GET', `/v3/accounts/${sub.id}?${query()}`);
      await expectError(response, 400, 'ValidationException', { problematicField: 'masqueradeAs' });
      expect(await snapshot(t)).toEqual(before);
    });
  }
});
