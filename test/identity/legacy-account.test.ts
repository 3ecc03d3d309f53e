import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { credit, operator } from '../transfers/support.ts';
import { createSubaccount, startIdentityApp } from './support.ts';

/** GET /v2/account and /v2/account/{id}: the legacy account shape (docs/contract.md, decision 38). */

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;
let subId: string;
beforeAll(async () => {
  t = await startIdentityApp();
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
  subId = (
    await createSubaccount(t, partner, {
      profileFields: [
        { fieldId: 'individualLegalName', value: 'Deandre Marcus Reynolds' },
        { fieldId: 'individualEmail', value: 'deandre@example.com' },
        { fieldId: 'individualCellphoneNumber', value: '+16508155122' },
      ],
    })
  ).id;
});
afterAll(async () => t.close());

async function get(path: string, who = partner) {
  const response = await signedFetch(t, who, { path });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown>, text };
}

describe('the legacy v2 account', () => {
  it('GET /v2/account answers the calling account with its ledgers', async () => {
    await credit(t, `account:${partner.accountId}`, 'USD', '125');
    // 25 USD held by an unconfirmed transfer: pending in the legacy ledger.
    const held = await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/transfers',
      body: JSON.stringify({ sourceCurrency: 'USD', sourceAmount: '25', dest: `account:${subId}` }),
    });
    expect(held.status, await held.clone().text()).toBe(200);
    const account = await get('/v2/account');
    expect(account.status, account.text).toBe(200);
    expect(account.body).toMatchObject({
      id: partner.accountId,
      srn: `account:${partner.accountId}`,
      // A partner's master account is a business.
      type: 'BUSINESS',
      profile: expect.objectContaining({ businessAccount: true, type: 'BUSINESS' }),
      verified: expect.any(Boolean),
      ledgers: [
        {
          srn: `account:${partner.accountId}`,
          currency: 'USD',
          balance: 100,
          pendingBalance: 25,
          totalBalance: 125,
        },
      ],
      totalBalances: { USD: 125 },
      availableBalances: { USD: 100 },
      paymentMethods: [],
      identities: [],
      documents: [],
      srnLimits: [],
      session: null,
      loginAt: null,
    });
    expect(typeof account.body.createdAt).toBe('number');
  });

  it('GET /v2/account/{id} maps the profile fields of a sub-account', async () => {
    const account = await get(`/v2/account/${subId}`);
    expect(account.status, account.text).toBe(200);
    expect(account.body).toMatchObject({
      id: subId,
      email: 'deandre@example.com',
      cellphone: '+16508155122',
      profile: {
        firstName: 'Deandre',
        lastName: 'Marcus Reynolds',
        name: 'Deandre Marcus Reynolds',
        country: 'US',
        businessAccount: false,
        ssn: null,
      },
    });
    const masqueraded = await get(`/v2/account?masqueradeAs=${subId}`);
    expect(masqueraded.body.id).toBe(subId);
  });

  it('answers 404 for an account outside the caller’s tree', async () => {
    const foreign = await get(`/v2/account/${subId}`, other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.type).toBe('NotFoundException');
  });

  it('needs credentials', async () => {
    expect((await fetch(`${t.baseUrl}/v2/account`)).status).toBe(401);
    // The operator API is not a partner credential.
    expect((await operator(t, 'GET', '/v2/account')).status).toBe(401);
  });
});
