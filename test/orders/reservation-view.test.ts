import { describe, expect, it } from 'vitest';
import { storedQuote } from '../../src/orders/reservation-view.ts';
import type { UsableReservationRow } from '../../src/orders/store.ts';
import { serializeJson } from '../../src/platform/json.ts';
import { Money } from '../../src/platform/money.ts';

const row = {
  id: 'RS_TEST',
  account_id: 'AC_TEST',
  request: {} as UsableReservationRow['request'],
  quote_locked: true,
  source_currency: 'USD',
  dest_currency: 'ETH',
  source_amount: '104.41',
  source_amount_without_fees: '100',
  dest_amount: '0.033333333333333333',
  exchange_rate: '0.000333333333333333333',
  fees: { ETH: '0.0004', USD: '3.2' },
  equivalencies: { USD: '104.41', EUR: '96.123456789012345678', ETH: '0.0348' },
} satisfies UsableReservationRow;

describe('storedQuote equivalencies (read when used)', () => {
  const quote = () => storedQuote(row)!;

  it('reads an entry as exact Money, the same object each time', () => {
    const equivalencies = quote().equivalencies;
    expect(equivalencies.EUR).toBeInstanceOf(Money);
    expect(equivalencies.EUR!.toFixed()).toBe('96.123456789012345678');
    expect(equivalencies.EUR).toBe(equivalencies.EUR);
  });

  it('has exactly the stored keys, for enumeration, in and Object.hasOwn', () => {
    const equivalencies = quote().equivalencies;
    expect(Object.keys(equivalencies)).toEqual(['USD', 'EUR', 'ETH']);
    expect('ETH' in equivalencies).toBe(true);
    expect(Object.hasOwn(equivalencies, 'USD')).toBe(true);
    expect('BTC' in equivalencies).toBe(false);
    expect(equivalencies.BTC).toBeUndefined();
    expect(Object.entries(equivalencies).map(([code, value]) => [code, value.toFixed()])).toEqual([
      ['USD', '104.41'],
      ['EUR', '96.123456789012345678'],
      ['ETH', '0.0348'],
    ]);
  });

  it('writes every entry as an exact JSON number, read or not', () => {
    const equivalencies = quote().equivalencies;
    void equivalencies.USD;
    expect(serializeJson({ equivalencies })).toBe(
      '{"equivalencies":{"USD":104.41,"EUR":96.123456789012345678,"ETH":0.0348}}',
    );
  });

  it('is an empty map when none was stored', () => {
    const equivalencies = storedQuote({ ...row, equivalencies: null })!.equivalencies;
    expect(Object.keys(equivalencies)).toEqual([]);
    expect(serializeJson(equivalencies)).toBe('{}');
  });
});
