import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rekeyAddressSpend } from '../../src/limits/address-rekey.ts';
import { addressSpendKey, type BillingAddress } from '../../src/limits/billing-address.ts';
import { MIGRATIONS_DIR } from '../../src/platform/db/migrate.ts';
import { orderBillingAddresses } from '../../src/wallet-orders/index.ts';
import { luhnCard } from '../checkout/support.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  CARD_TEST_ENV,
  createOrder,
  lockedReservation,
  orderBody,
  setLimits,
  testCard,
} from '../wallet-orders/support.ts';

/**
 * Card limits per billing address hold however the address is written: ZIP+4 or ZIP, case,
 * punctuation, spacing, USPS abbreviations, and the unit (Apt, Unit, Suite, #) all count against
 * the one limit of the street address.
 */

const base = (street1: string, postalCode = '97210'): BillingAddress => ({
  street1,
  city: 'Portland',
  state: 'OR',
  postalCode,
  country: 'US',
});

/** Ways of writing "<n> North Limit Road, 97210" that must all be one address. */
const spellings = {
  number: fc.constantFrom('77', '077'),
  direction: fc.constantFrom('North', 'N', 'N.', 'north', 'NORTH'),
  name: fc.constantFrom('Limit', 'LIMIT', 'limit', 'Límit'),
  suffix: fc.constantFrom('Road', 'Rd', 'Rd.', 'ROAD', 'road', 'rd'),
  unit: fc.constantFrom(
    '',
    ' Unit 2',
    ', Apt 5',
    ' Apt. 5B',
    ' #7',
    ' # 7',
    ' Suite 100',
    ', Ste. 100',
    ' STE100',
    ' Unit 2-B',
    ' Apt #12',
    ', 2nd Floor',
    ' Fl 3',
    ' Room 4',
    ' Bldg 3, Apt 5',
  ),
  leadingUnit: fc.constantFrom('', 'Apt 5, ', '#7 ', 'Unit 2 '),
  separator: fc.constantFrom(' ', '  ', ' , ', '\u00a0', ' - '),
  zip: fc.constantFrom('97210', '97210-0001', '972100001', '97210-1234'),
};

const variant = fc
  .record(spellings)
  .map(({ number, direction, name, suffix, unit, leadingUnit, separator, zip }) =>
    base(`${leadingUnit}${[number, direction, name, suffix].join(separator)}${unit}`, zip),
  );

describe('the billing-address limit key', () => {
  it('is one key for every way of writing one street address', () => {
    const key = addressSpendKey(base('77 North Limit Road'));
    fc.assert(
      fc.property(variant, (address) => {
        expect(addressSpendKey(address), address.street1).toBe(key);
      }),
      { numRuns: 2000 },
    );
  });

  it('is another key for another house number, street, direction, ZIP or country', () => {
    const key = addressSpendKey(base('77 North Limit Road'));
    for (const other of [
      base('78 North Limit Road'),
      base('77 South Limit Road'),
      base('77 Limit Road'),
      base('77 North Limits Road'),
      base('77 North Limit Street'),
      base('77 North Limit Road', '97211'),
      base('77 North Limit Road', '97211-0001'),
      { ...base('77 North Limit Road'), country: 'CA', postalCode: 'K1A 0B1' },
    ]) {
      expect(addressSpendKey(other), `${other.street1} ${other.postalCode}`).not.toBe(key);
    }
  });

  it('keeps words that only look like unit designators when no unit number follows', () => {
    expect(addressSpendKey(base('1 Lot Road'))).not.toBe(addressSpendKey(base('1 Road')));
    expect(addressSpendKey(base('12 Suite Street'))).not.toBe(addressSpendKey(base('12 Street')));
    expect(addressSpendKey(base('5 Office Park Dr'))).not.toBe(addressSpendKey(base('5 Dr')));
  });

  it('keeps letters of every script and the postal codes of other countries whole', () => {
    const athens = { street1: 'Ερμού 5', city: 'Αθήνα', state: 'I', postalCode: '105 63', country: 'GR' };
    expect(addressSpendKey(athens)).not.toBe(addressSpendKey({ ...athens, street1: 'Σταδίου 5' }));
    expect(addressSpendKey(athens)).toBe(addressSpendKey({ ...athens, postalCode: '10563' }));
    const ottawa = {
      street1: '80 Wellington St',
      city: 'Ottawa',
      state: 'ON',
      postalCode: 'K1A 0A2',
      country: 'CA',
    };
    expect(addressSpendKey(ottawa)).not.toBe(addressSpendKey({ ...ottawa, postalCode: 'K1A 0A3' }));
  });
});

let t: TestApp;
let partner: PartnerCredentials;
let cards = 0;

/** Each order its own card, so only the address can refuse it (the card has a limit too). */
const nextCard = () => testCard(luhnCard('411111', 500_000 + ++cards));

beforeAll(async () => {
  t = await startTestApp({ env: CARD_TEST_ENV });
  partner = await createPartner(t, { name: 'Address limits' });
  // One ~104 USD order fits in a day, a second does not.
  await setLimits(t, partner.accountId, { STANDARD: { daily: '150', weekly: '1000', yearly: '9000' } });
});
afterAll(async () => t?.close());

async function order(address: BillingAddress) {
  const { reservation, amount } = await lockedReservation(t, partner);
  return createOrder(t, partner, orderBody(partner, reservation, amount, { address, debitCard: nextCard() }));
}

describe('one daily limit per street address, over HTTP', () => {
  /** Each a way of writing "<n> Limit Road, Portland OR 97210", the issue's two first. */
  const variants: [string, (n: number) => BillingAddress][] = [
    ['ZIP+4', (n) => base(`${n} Limit Road`, '97210-0001')],
    ['a unit', (n) => base(`${n} Limit Road Unit 2`)],
    ['ZIP+4 without its dash', (n) => base(`${n} Limit Road`, '972100001')],
    ['the abbreviation', (n) => base(`${n} Limit Rd`)],
    ['capitals and a full stop', (n) => base(`${n} LIMIT RD.`)],
    ['extra spaces', (n) => base(`${n}   limit    road`)],
    ['an apartment', (n) => base(`${n} Limit Road, Apt 5`)],
    ['a number sign', (n) => base(`${n} Limit Road #7`)],
    ['a suite', (n) => base(`${n} Limit Road Suite 100`)],
    ['Ste.', (n) => base(`${n} Limit Road Ste. 100`)],
    ['the unit first', (n) => base(`Apt 5, ${n} Limit Road`)],
    ['a floor', (n) => base(`${n} Limit Road, 2nd Floor`)],
    ['a unit and ZIP+4 together', (n) => base(`${n} limit rd unit 2-B`, '97210-4321')],
  ];

  it.each(variants.map(([name, make], index) => [name, make, 300 + index] as const))(
    'refuses the second order of the day written with %s',
    async (_name, make, n) => {
      expect((await order(base(`${n} Limit Road`))).status).toBe(200);
      const second = await order(make(n));
      expect(second.status, JSON.stringify(second.body)).toBe(400);
      expect(second.body.errorCode).toBe('limits.dailyLimitReached');
    },
  );

  it('answers the spend of the street address on POST /v3/widget/limits/calculate, whatever the spelling', async () => {
    const placed = await order(base('400 Limit Road Unit 9', '97210-0009'));
    expect(placed.status).toBe(200);
    const response = await fetch(`${t.baseUrl}/v3/widget/limits/calculate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        accountId: partner.accountId,
        address: base('400 LIMIT RD, APT 1'),
        walletType: 'DEBIT_CARD',
        sourceCurrency: 'USD',
      }),
    });
    const limits = (await response.json()) as { dailyTotalSpent: number; dailyTotal: number };
    expect(limits.dailyTotal).toBe(150);
    expect(limits.dailyTotalSpent).toBe(Number(placed.body.sourceAmount));
  });
});

/** The key before migration 033, as it was computed (for spend written before it). */
function keyBefore033(address: BillingAddress): string {
  const words: Record<string, string> = {
    STREET: 'ST',
    AVENUE: 'AVE',
    ROAD: 'RD',
    BOULEVARD: 'BLVD',
    DRIVE: 'DR',
    LANE: 'LN',
    COURT: 'CT',
    PLACE: 'PL',
    SUITE: 'STE',
    APARTMENT: 'APT',
    NORTH: 'N',
    SOUTH: 'S',
    EAST: 'E',
    WEST: 'W',
  };
  const street = address.street1
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .map((word) => words[word] ?? word)
    .join(' ');
  const postal = address.postalCode.replace(/[^0-9A-Z]/g, '');
  return `address:${createHash('sha256').update(`${address.country}|${postal}|${street}`).digest('hex')}`;
}

describe('spend recorded before migration 033', () => {
  it('counts under the new key once the start re-keys it, running totals and all', async () => {
    const db = t.database.db;
    const p = await createPartner(t, { name: 'Before the re-key' });
    await setLimits(t, p.accountId, { STANDARD: { daily: '250', weekly: '1000', yearly: '9000' } });
    const place = async (address: BillingAddress) => {
      const { reservation, amount } = await lockedReservation(t, p);
      return createOrder(t, p, orderBody(p, reservation, amount, { address, debitCard: nextCard() }));
    };
    const written = [base('90 Rekey Road'), base('90 Rekey Rd Unit 3', '97210-1234')];
    const orders: { id: string; amount: string }[] = [];
    for (const address of written) {
      const placed = await place(address);
      expect(placed.status).toBe(200);
      orders.push({ id: placed.body.id as string, amount: String(placed.body.sourceAmount) });
    }
    // As an older Rampart wrote them: each spelling under its own key, with its own running total.
    for (const [index, address] of written.entries()) {
      await db.query(
        `UPDATE card_spend SET spend_key = $2, running_usd = amount_usd WHERE order_id = $1 AND spend_key = $3`,
        [orders[index]!.id, keyBefore033(address), addressSpendKey(address)],
      );
    }
    expect(new Set(written.map(keyBefore033)).size).toBe(2);
    // Migration 033 again, on these rows.
    const migration = await readFile(path.join(MIGRATIONS_DIR, '033_card_spend_address_rekeys.sql'), 'utf8');
    await db.query('DROP TABLE card_spend_address_rekeys');
    await db.query(migration);
    // Split between two keys, the third ~104 USD order would fit the 250 a day of each.
    expect(await rekeyAddressSpend(db, orderBillingAddresses)).toBe(2);
    expect((await db.query('SELECT 1 FROM card_spend_address_rekeys')).rowCount).toBe(0);
    expect(await rekeyAddressSpend(db, orderBillingAddresses)).toBe(0);

    const key = addressSpendKey(written[0]!);
    const { rows } = await db.query<{ order_id: string; running_usd: string }>(
      'SELECT order_id, running_usd FROM card_spend WHERE spend_key = $1 ORDER BY at, order_id',
      [key],
    );
    expect(rows.map((row) => row.order_id)).toEqual(orders.map((o) => o.id));
    const sum = orders.reduce((total, o) => total + Number(o.amount), 0);
    expect(Number(rows[1]!.running_usd)).toBeCloseTo(sum, 2);
    const third = await place(base('90 REKEY RD APT 7'));
    expect(third.status, JSON.stringify(third.body)).toBe(400);
    expect(third.body.errorCode).toBe('limits.dailyLimitReached');
  });
});
