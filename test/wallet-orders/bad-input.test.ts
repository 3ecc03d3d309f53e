import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { snapshot } from '../orders/support.ts';
import {
  createOrder,
  lockedReservation,
  orderBody,
  postSigned,
  reserve,
  startCardOrderApp,
  testCard,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
const logLines: string[] = [];
const PAN = '4000056655665556';

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp({
    env: { LOG_LEVEL: 'trace' },
    logStream: { write: (line: string) => void logLines.push(line) },
  }));
});
afterAll(async () => t.close());

const card = (overrides: Record<string, string>) => ({ ...testCard(PAN), ...overrides });

async function expectRefused(body: unknown, status: number, errorCode: string, field?: string) {
  const before = await snapshot(t);
  const answer = await createOrder(t, partner, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.errorCode).toBe(errorCode);
  if (field) expect(answer.body.problematicField).toBe(field);
  expect(await snapshot(t)).toEqual(before);
}

describe('POST /v3/debitcard/process/partner refuses bad input and changes nothing', () => {
  it.each([
    [
      'Luhn failure',
      { debitCard: card({ number: '4000056655665557' }) },
      'validation.invalidDebitCardNumber',
    ],
    ['12 digits', { debitCard: card({ number: '400005665566' }) }, 'validation.invalidDebitCardNumber'],
    [
      '20 digits',
      { debitCard: card({ number: '40000566556655560000' }) },
      'validation.invalidDebitCardNumber',
    ],
    ['2-digit year', { debitCard: card({ year: '30' }) }, 'validation.cardExpirationYear'],
    ['past expiry', { debitCard: card({ year: '2020' }) }, 'validation.cardExpirationYear'],
    ['CVV of 2 digits', { debitCard: card({ cvv: '12' }) }, 'validation.cvv'],
    ['CVV of 5 digits', { debitCard: card({ cvv: '12345' }) }, 'validation.cvv'],
    [
      'a US postal code with a letter',
      { address: { street1: '1 A St', city: 'X', state: 'CA', postalCode: '9410A', country: 'US' } },
      'validation.invalidPostalCode',
    ],
    [
      'an unsupported country',
      { address: { street1: '1 A St', city: 'X', state: 'XX', postalCode: '1', country: 'XX' } },
      'validation.unsupportedCountry',
    ],
    [
      'a bad US state',
      { address: { street1: '1 A St', city: 'X', state: 'ZZ', postalCode: '94105', country: 'US' } },
      'validation.invalidUsState',
    ],
    ['a phone without country code', { phone: '4155550100' }, 'validation.phoneNumRequiresCountryCode'],
    ['a bad IP address', { ipAddress: '999.1.1.1' }, 'validation.invalidValue'],
    ['a non-user owner', { owner: 'account:AC_AAAAAAAAAAA' }, 'validation.invalidValue'],
  ])('%s', async (_name, extra, errorCode) => {
    const { reservation, amount } = await lockedReservation(t, partner);
    await expectRefused(orderBody(partner, reservation, amount, extra), 400, errorCode);
  });

  it('an amount differing from the locked quote (decision 3)', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    const off = (Number(amount) + 0.01).toFixed(2);
    await expectRefused(orderBody(partner, reservation, off), 400, 'validation.amountMismatch', 'amount');
    await expectRefused(orderBody(partner, reservation, '100'), 400, 'validation.amountMismatch', 'amount');
  });

  it('currencies or dest differing from the locked reservation', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    await expectRefused(
      orderBody(partner, reservation, amount, { destCurrency: 'BTC' }),
      400,
      'validation.reservationMismatch',
    );
  });

  it('another partner’s reservation', async () => {
    const other = await createPartner(t, { name: 'Other' });
    const { reservation, amount } = await lockedReservation(t, other);
    await expectRefused(orderBody(partner, reservation, amount), 400, 'illegalReservation');
  });

  it('a used reservation', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    expect((await createOrder(t, partner, orderBody(partner, reservation, amount))).status).toBe(200);
    await expectRefused(orderBody(partner, reservation, amount), 400, 'illegalReservation');
  });

  it('an expired reservation (service clock past 15 minutes)', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    t.ctx.clock.setOffsetMs(t.ctx.clock.currentOffsetMs() + 15 * 60 * 1000 + 1);
    await expectRefused(orderBody(partner, reservation, amount), 400, 'illegalReservation');
  });

  it('an unknown reservation', async () => {
    await expectRefused(orderBody(partner, 'ABCDEFGHJKLMNPQRSTUV', '104.41'), 400, 'illegalReservation');
  });

  it.each([
    [
      'missing debitCard',
      (b: Record<string, unknown>) => ({ ...b, debitCard: undefined }),
      'validation.fieldRequired',
    ],
    [
      'number as a JSON number',
      (b: Record<string, unknown>) => ({
        ...b,
        debitCard: { ...(b.debitCard as object), number: 4111111111111111 },
      }),
      'validation.invalidValue',
    ],
    [
      'an oversized name',
      (b: Record<string, unknown>) => ({ ...b, givenName: 'x'.repeat(5000) }),
      'validation.invalidValue',
    ],
    [
      'a missing postal code',
      (b: Record<string, unknown>) => ({
        ...b,
        address: { street1: '1 A St', city: 'X', state: 'CA', country: 'US' },
      }),
      'validation.fieldRequired',
    ],
    [
      'a hostile amount',
      (b: Record<string, unknown>) => ({ ...b, amount: '1e3' }),
      'validation.invalidValue',
    ],
    [
      'walletType CREDIT_CARD',
      (b: Record<string, unknown>) => ({ ...b, walletType: 'CREDIT_CARD' }),
      'validation.invalidValue',
    ],
  ])('%s', async (_name, change, errorCode) => {
    const { reservation, amount } = await lockedReservation(t, partner);
    await expectRefused(change(orderBody(partner, reservation, amount)), 400, errorCode);
  });

  it('a __proto__ key and malformed JSON', async () => {
    const before = await snapshot(t);
    for (const raw of ['{"__proto__": {"x": 1}}', '{"debitCard":', 'null', '[]']) {
      const answer = await postSigned(t, partner, '/v3/debitcard/process/partner', raw);
      expect(answer.status, raw).toBe(400);
      expect(((await answer.json()) as { type: string }).type).toMatch(/Exception$/);
    }
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('the card number never reaches the database or the logs', () => {
  it('after accepted and refused orders, no table row and no log line holds the PAN or the CVV', async () => {
    const { reservation, amount } = await reserve(t, partner, {
      sourceAmount: '50',
      amountIncludeFees: false,
      paymentMethod: 'debit-card',
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      dest: 'ethereum:0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413',
      referrerAccountId: partner.accountId,
      country: 'US',
    }).then(async (r) => ({
      reservation: r.reservation,
      amount: (await lockedTotal(r.reservation)) as string,
    }));
    const ok = await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { debitCard: card({ cvv: '987' }) }),
    );
    expect(ok.status).toBe(200);
    await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { debitCard: card({ cvv: '987' }) }),
    );
    await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { debitCard: card({ cvv: '98' }) }),
    );
    const everything = JSON.stringify(await snapshot(t));
    expect(everything).not.toContain(PAN);
    expect(everything).toContain(PAN.slice(-4));
    const logs = logLines.join('\n');
    expect(logLines.length).toBeGreaterThan(0);
    expect(logs).not.toContain(PAN);
    expect(logs).not.toContain('"987"');
  });
});

async function lockedTotal(reservation: string) {
  const { signedFetch } = await import('../helpers/partner.ts');
  const response = await signedFetch(t, partner, { path: `/v3/orders/reservation/${reservation}` });
  return String(((await response.json()) as { quote: { sourceAmount: number } }).quote.sourceAmount);
}
