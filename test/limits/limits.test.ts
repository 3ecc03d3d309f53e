import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressSpendKey } from '../../src/limits/billing-address.ts';
import { findReservationById } from '../../src/orders/store.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { snapshot } from '../orders/support.ts';
import {
  CARD_TEST_ENV,
  CARDS,
  createOrder,
  lockedReservation,
  orderBody,
  postSigned,
  setLimits,
  testCard,
  US_ADDRESS,
} from '../wallet-orders/support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  t = await startTestApp({ env: CARD_TEST_ENV });
  partner = await createPartner(t, { usersApi: true });
});
afterAll(async () => t.close());

async function calculate(body: unknown) {
  const response = await fetch(`${t.baseUrl}/v3/widget/limits/calculate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const limitsBody = (address: Record<string, string> = US_ADDRESS, extra: Record<string, unknown> = {}) => ({
  accountId: partner.accountId,
  address,
  walletType: 'DEBIT_CARD',
  sourceCurrency: 'USD',
  ...extra,
});

describe('POST /v3/widget/limits/calculate', () => {
  it('answers the default US and international tables with nothing spent, without credentials', async () => {
    const us = await calculate(limitsBody({ ...US_ADDRESS, street1: '1 Fresh St' }));
    expect(us).toEqual({
      status: 200,
      body: {
        dailyTotalSpent: 0,
        weeklyTotalSpent: 0,
        yearlyTotalSpent: 0,
        dailyTotal: 500,
        weeklyTotal: 500,
        yearlyTotal: 2500,
        dailyRemaining: 500,
        weeklyRemaining: 500,
        yearlyRemaining: 2500,
      },
    });
    const de = await calculate(
      limitsBody(
        { street1: 'Hauptstraße 1', city: 'Berlin', state: 'BE', postalCode: '10115', country: 'DE' },
        {
          walletType: 'APPLE_PAY',
          sourceCurrency: 'EUR',
        },
      ),
    );
    expect(de.body).toMatchObject({ dailyTotal: 500, weeklyTotal: 2000, yearlyTotal: 3000 });
    const nl = await calculate(
      limitsBody(
        { street1: 'Dam 1', city: 'Amsterdam', state: 'NH', postalCode: '1012 JS', country: 'NL' },
        { walletType: 'WALLET_PAY' },
      ),
    );
    expect(nl.status).toBe(200);
  });

  it('counts an order’s charged amount against the normalised address, released when the order fails', async () => {
    const address = { ...US_ADDRESS, street1: '77 Spend Street' };
    const { reservation, amount } = await lockedReservation(t, partner);
    const created = await createOrder(t, partner, orderBody(partner, reservation, amount, { address }));
    expect(created.status).toBe(200);
    const spelledOtherwise = { ...address, street1: '77 spend st.', postalCode: '97209' };
    const after = await calculate(limitsBody(spelledOtherwise));
    expect(after.body).toMatchObject({
      dailyTotalSpent: Number(amount),
      dailyRemaining: Number((500 - Number(amount)).toFixed(2)),
      yearlyRemaining: Number((2500 - Number(amount)).toFixed(2)),
    });
    // Outside the daily window but inside the weekly one.
    t.ctx.clock.setOffsetMs(t.ctx.clock.currentOffsetMs() + 25 * 3600 * 1000);
    const nextDay = await calculate(limitsBody(address));
    expect(nextDay.body).toMatchObject({ dailyTotalSpent: 0, weeklyTotalSpent: Number(amount) });
  });

  it('refuses an order above the remaining amount with limits.dailyLimitReached', async () => {
    const address = { ...US_ADDRESS, street1: '5 Limit Lane' };
    const amounts: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { reservation, amount } = await lockedReservation(t, partner);
      const debitCard = testCard(CARDS.mastercard);
      const answer = await createOrder(
        t,
        partner,
        orderBody(partner, reservation, amount, { address, debitCard }),
      );
      if (answer.status !== 200) {
        expect(answer.body.errorCode).toBe('limits.dailyLimitReached');
        break;
      }
      amounts.push(amount);
    }
    expect(amounts).toHaveLength(4);
  });

  it('limits a card on its own: the same card across other addresses reaches limits.dailyLimitReached', async () => {
    const card = testCard('5200828282828228');
    const accepted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { reservation, amount } = await lockedReservation(t, partner);
      const address = { ...US_ADDRESS, street1: `${100 + i} Card Road` };
      const answer = await createOrder(
        t,
        partner,
        orderBody(partner, reservation, amount, { address, debitCard: card }),
      );
      if (answer.status !== 200) {
        expect(answer.body.errorCode).toBe('limits.dailyLimitReached');
        break;
      }
      accepted.push(amount);
    }
    // Four ~104 USD orders fit in 500 a day; each address alone has room for the fifth.
    expect(accepted).toHaveLength(4);
  });

  it('refuses with limits.weeklyLimitReached when the week is full though the day is not', async () => {
    const p = await createPartner(t, { name: 'Weekly' });
    await setLimits(t, p.accountId, { STANDARD: { daily: '300', weekly: '400', yearly: '9000' } });
    const address = { ...US_ADDRESS, street1: '9 Week Way' };
    const order = async (card: string) => {
      const { reservation, amount } = await lockedReservation(t, p);
      return createOrder(t, p, orderBody(p, reservation, amount, { address, debitCard: testCard(card) }));
    };
    expect((await order('5200828282828236')).status).toBe(200);
    expect((await order('5200828282828244')).status).toBe(200);
    t.ctx.clock.setOffsetMs(t.ctx.clock.currentOffsetMs() + 25 * 3600 * 1000);
    expect((await order('5200828282828251')).status).toBe(200);
    const fourth = await order('5200828282828269');
    expect(fourth.status).toBe(400);
    expect(fourth.body.errorCode).toBe('limits.weeklyLimitReached');
  });

  it('applies the override to an order placed alone (Idempotency-Key), which then leaves its reservation usable', async () => {
    const p = await createPartner(t, { name: 'Alone with an override' });
    await setLimits(t, p.accountId, { STANDARD: { daily: '10', weekly: '400', yearly: '9000' } });
    const { reservation, amount } = await lockedReservation(t, p);
    const body = orderBody(p, reservation, amount, { address: { ...US_ADDRESS, street1: '3 Alone Row' } });
    const refused = await postSigned(t, p, '/v3/debitcard/process/partner', body, {
      'Idempotency-Key': `override-${reservation}`,
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errorCode: string }).errorCode).toBe('limits.dailyLimitReached');
    expect(await findReservationById(t.ctx.db, reservation)).toMatchObject({ used: false });
    await setLimits(t, p.accountId, {});
    const placed = await postSigned(t, p, '/v3/debitcard/process/partner', body, {
      'Idempotency-Key': `override-${reservation}-defaults`,
    });
    expect(placed.status).toBe(200);
  });

  it("accepts a supported country's own postal code format (API.md decision 5)", async () => {
    const ottawa = {
      street1: '80 Wellington St',
      city: 'Ottawa',
      state: 'ON',
      postalCode: 'K1A 0A2',
      country: 'CA',
    };
    const answer = await calculate(limitsBody(ottawa, { sourceCurrency: 'CAD' }));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ dailyTotalSpent: 0 });
  });

  it('applies a partner override set by the operator (audited), and {} restores the defaults', async () => {
    const p = await createPartner(t, { name: 'Override' });
    await setLimits(t, p.accountId, { STANDARD: { daily: '1000', weekly: '2000', yearly: 9000.5 } });
    const withOverride = await calculate({ ...limitsBody(), accountId: p.accountId });
    expect(withOverride.body).toMatchObject({ dailyTotal: 1000, weeklyTotal: 2000, yearlyTotal: 9000.5 });
    const audit = await t.database.db.query('SELECT action FROM operator_audit WHERE target = $1', [
      `account:${p.accountId}`,
    ]);
    expect(audit.rowCount).toBeGreaterThan(0);
    await setLimits(t, p.accountId, {});
    const back = await calculate({ ...limitsBody(), accountId: p.accountId });
    expect(back.body).toMatchObject({ dailyTotal: 500 });
    const bad = await fetch(`${t.baseUrl}/operator/v1/accounts/${p.accountId}/card-limits`, {
      method: 'PUT',
      headers: operatorHeaders(),
      body: JSON.stringify({ STANDARD: { daily: '3000', weekly: '2000', yearly: '9000' } }),
    });
    expect(bad.status).toBe(400);
  });

  it('uses the DEBIT_CARD_L2 table for a user with that scope approved', async () => {
    const created = await postSigned(t, partner, '/v3/users', {
      fields: {
        firstName: 'Grace',
        lastName: 'Hopper',
        dateOfBirth: '1980-12-09',
        residenceAddress: {
          street1: '1 Navy Way',
          city: 'Arlington',
          state: 'VA',
          postalCode: '22202',
          country: 'US',
        },
      },
      scopes: ['TRANSFER', 'DEBIT_CARD_L2'],
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const user = (await created.json()) as { id: string; scopes: Record<string, { status: string }> };
    const standard = await calculate(limitsBody(US_ADDRESS, { userId: user.id }));
    expect(standard.body).toMatchObject({ dailyTotal: 500 });
    await t.database.db.query(
      `UPDATE user_scopes SET status = 'APPROVED' WHERE user_id = $1 AND scope = 'DEBIT_CARD_L2'`,
      [user.id],
    );
    const l2 = await calculate(limitsBody(US_ADDRESS, { userId: user.id }));
    expect(l2.body).toMatchObject({ dailyTotal: 2500, weeklyTotal: 7500, yearlyTotal: 100000 });
  });

  it.each([
    [
      'no postalCode',
      { address: { street1: '1 A St', city: 'X', state: 'CA', country: 'US' } },
      'validation.fieldRequired',
    ],
    ['postalCode 9410A', { address: { ...US_ADDRESS, postalCode: '9410A' } }, 'validation.invalidPostalCode'],
    ['country XX', { address: { ...US_ADDRESS, country: 'XX' } }, 'validation.unsupportedCountry'],
    ['country lower-case word', { address: { ...US_ADDRESS, country: 'usa' } }, 'validation.invalidValue'],
    ['walletType CREDIT_CARD', { walletType: 'CREDIT_CARD' }, 'validation.invalidValue'],
    ['sourceCurrency JPY', { sourceCurrency: 'JPY' }, 'validation.invalidValue'],
    [
      'a state name instead of code',
      { address: { ...US_ADDRESS, state: 'Oregon' } },
      'validation.invalidUsState',
    ],
    ['an unknown account', { accountId: 'AC_AAAAAAAAAAA' }, 'validation.invalidValue'],
    ['an unknown user', { userId: 'US_AAAAAAAAAAA' }, 'validation.invalidValue'],
    ['no address', { address: undefined }, 'validation.fieldRequired'],
    ['street1 as a number', { address: { ...US_ADDRESS, street1: 12 } }, 'validation.invalidValue'],
  ])('refuses %s and changes nothing', async (_name, extra, errorCode) => {
    const before = await snapshot(t);
    const answer = await calculate({ ...limitsBody(), ...extra });
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.errorCode).toBe(errorCode);
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('GET /v3/widget/supportedCountries', () => {
  it('lists the 29 billing countries with name, code, phone prefix and state label', async () => {
    const response = await fetch(`${t.baseUrl}/v3/widget/supportedCountries`);
    const countries = (await response.json()) as { code: string; name: string; phonePrefix: string }[];
    expect(countries).toHaveLength(29);
    expect(countries).toContainEqual({
      name: 'United States',
      code: 'US',
      phonePrefix: '+1',
      stateLabel: 'State',
    });
    expect(countries).toContainEqual(expect.objectContaining({ code: 'NO', phonePrefix: '+47' }));
  });
});

describe('address normalisation', () => {
  it('treats case, punctuation and street abbreviations alike, but not another number', () => {
    const base = { street1: '12 Main Street', city: 'A', state: 'CA', postalCode: '94105', country: 'US' };
    expect(addressSpendKey({ ...base, street1: '12 MAIN ST.' })).toBe(addressSpendKey(base));
    expect(addressSpendKey({ ...base, postalCode: '94105' })).toBe(addressSpendKey(base));
    expect(addressSpendKey({ ...base, street1: '13 Main Street' })).not.toBe(addressSpendKey(base));
    expect(addressSpendKey({ ...base, country: 'CA', postalCode: 'K1A 0B1' })).not.toBe(
      addressSpendKey(base),
    );
  });
});
