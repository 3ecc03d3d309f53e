import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RampartClient, ValidationException } from '../../sdk/src/index.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  CARD_TEST_ENV,
  createOrder,
  lockedReservation,
  orderBody,
  postSigned,
  setLimits,
} from '../wallet-orders/support.ts';

/**
 * GET /v3/limits (docs/contract.md decision 43): the card limits Rampart enforces, in Wyre's
 * nesting (context → window in hours → currency → {in, out, availIn, availOut}), read through
 * the SDK.
 */
let t: TestApp;
let partner: PartnerCredentials;
let client: RampartClient;

beforeAll(async () => {
  t = await startTestApp({ env: CARD_TEST_ENV });
  partner = await createPartner(t, { usersApi: true });
  client = clientOf(partner);
});
afterAll(async () => t.close());

function clientOf(credentials: PartnerCredentials) {
  return new RampartClient({
    baseUrl: t.baseUrl,
    auth: { type: 'signature', apiKey: credentials.apiKey, secretKey: credentials.secretKey },
  });
}

const card = (limit: string, left: string) => ({
  USD: { in: limit, out: null, availIn: left, availOut: null },
});

async function newUser(owner: PartnerCredentials, scopes: string[] = ['TRANSFER']) {
  const created = await postSigned(t, owner, '/v3/users', { scopes });
  expect(created.status, await created.clone().text()).toBe(200);
  return ((await created.json()) as { id: string }).id;
}

describe('GET /v3/limits', () => {
  it('answers the account’s card tables by window in hours, nothing spent, ACCOUNT and ACH empty', async () => {
    expect(await client.limits.get()).toEqual({
      ACCOUNT: {},
      ACH: {},
      DEBIT_CARD: { '24': card('500', '500'), '168': card('500', '500'), '8760': card('2500', '2500') },
    });
  });

  it('follows the partner’s own tables set by the operator', async () => {
    const custom = await createPartner(t, { name: 'Custom limits' });
    await setLimits(t, custom.accountId, { STANDARD: { daily: '100', weekly: '700', yearly: '9000.5' } });
    const limits = await clientOf(custom).limits.get();
    expect(limits.DEBIT_CARD).toEqual({
      '24': card('100', '100'),
      '168': card('700', '700'),
      '8760': card('9000.5', '9000.5'),
    });
  });

  it('shows a user’s spend and tier for srn=user:US_…, and the same when masquerading as the user', async () => {
    const userId = await newUser(partner, ['TRANSFER', 'DEBIT_CARD_L2']);
    const { reservation, amount } = await lockedReservation(t, partner);
    const created = await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { owner: `user:${userId}` }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const spent = (limit: number) => String(Number((limit - Number(amount)).toFixed(2)));
    const standard = await client.limits.get({ srn: `user:${userId}` });
    expect(standard.DEBIT_CARD).toEqual({
      '24': card('500', spent(500)),
      '168': card('500', spent(500)),
      '8760': card('2500', spent(2500)),
    });
    expect(await client.masquerade(`user:${userId}`).limits.get()).toEqual(standard);
    await t.database.db.query(
      `UPDATE user_scopes SET status = 'APPROVED' WHERE user_id = $1 AND scope = 'DEBIT_CARD_L2'`,
      [userId],
    );
    const higher = await client.limits.get({ srn: `user:${userId}` });
    expect(higher.DEBIT_CARD['24']).toEqual(card('2500', spent(2500)));
    expect(higher.DEBIT_CARD['8760']).toEqual(card('100000', spent(100000)));
  });

  it('refuses another partner’s user, an srn of another account and a malformed srn', async () => {
    const other = await createPartner(t, { name: 'Other', usersApi: true });
    const theirs = await newUser(other);
    for (const srn of [
      `user:${theirs}`,
      `account:${other.accountId}`,
      'wallet:WA_2222222222A',
      'user:nobody',
    ]) {
      const error = await client.limits.get({ srn }).catch((e: unknown) => e);
      expect(error, srn).toBeInstanceOf(ValidationException);
      expect((error as ValidationException).problematicField, srn).toBe('srn');
    }
    const ownAccount = await client.limits.get({ srn: `account:${partner.accountId}` });
    expect(ownAccount.DEBIT_CARD['24']).toEqual(card('500', '500'));
  });

  it('needs credentials, and keeps amounts exact in json_numberstring', async () => {
    expect((await fetch(`${t.baseUrl}/v3/limits`)).status).toBe(401);
    const strings = await signedFetch(t, partner, { path: '/v3/limits?format=json_numberstring' });
    expect(strings.status).toBe(200);
    expect(await strings.json()).toMatchObject({ DEBIT_CARD: { '24': card('500', '500') } });
  });
});
