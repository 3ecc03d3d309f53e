import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/platform/errors.ts';
import {
  currencyScale,
  isKnownCurrency,
  isMoney,
  Money,
  parseAmount,
  parsePositiveAmount,
  roundFee,
  roundPayout,
} from '../../src/platform/money.ts';

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a rejection');
}

describe('parseAmount', () => {
  it('accepts decimal strings and JSON numbers exactly', () => {
    expect(parseAmount('12.34', 'amount').toFixed()).toBe('12.34');
    expect(parseAmount(12.34, 'amount').toFixed()).toBe('12.34');
    expect(parseAmount('0.000000000000000001', 'amount').toFixed()).toBe('0.000000000000000001');
    expect(parseAmount('-5', 'amount').toFixed()).toBe('-5');
    expect(parseAmount(0, 'amount').toFixed()).toBe('0');
    expect(parseAmount('123456789012345678901234567890.123456789012345678', 'amount').toFixed()).toBe(
      '123456789012345678901234567890.123456789012345678',
    );
  });

  it('reads numbers by their shortest source text, never their binary expansion', () => {
    expect(parseAmount(0.1, 'amount').toFixed()).toBe('0.1');
    expect(parseAmount(1e-7, 'amount').toFixed()).toBe('0.0000001');
    expect(parseAmount(1e21, 'amount').toFixed()).toBe('1000000000000000000000');
  });

  const refused: unknown[] = [
    '1e5',
    '1E5',
    'NaN',
    ' 1',
    '1 ',
    '0x10',
    '+1',
    '01',
    '1.',
    '.5',
    '',
    '1,5',
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.NaN,
    {},
    [],
    true,
    null,
    undefined,
    '1.0000000000000000000000000000001', // 31 decimals
  ];
  for (const input of refused) {
    it(`refuses ${typeof input === 'string' ? JSON.stringify(input) : String(input)} naming the field`, () => {
      const error = rejection(() => parseAmount(input, 'sourceAmount'));
      expect(error.type).toBe('ValidationException');
      expect(error.problematicField).toBe('sourceAmount');
      expect(error.status).toBe(400);
    });
  }
});

describe('parsePositiveAmount', () => {
  it('refuses zero, negatives and more decimals than the currency has', () => {
    expect(parsePositiveAmount('10.25', 'amount', 'USD').toFixed()).toBe('10.25');
    expect(rejection(() => parsePositiveAmount('0', 'amount', 'USD')).problematicField).toBe('amount');
    expect(rejection(() => parsePositiveAmount('-1', 'amount', 'USD')).problematicField).toBe('amount');
    expect(rejection(() => parsePositiveAmount('10.251', 'amount', 'USD')).message).toContain('USD');
    expect(rejection(() => parsePositiveAmount('1.5', 'amount', 'JPY')).type).toBe('ValidationException');
    expect(parsePositiveAmount('0.00000001', 'amount', 'BTC').toFixed()).toBe('0.00000001');
  });
});

describe('rounding per currency', () => {
  it('rounds fees up and payouts down at each currency scale', () => {
    const cases: [string, string, string, string][] = [
      // currency, amount, fee (up), payout (down)
      ['USD', '1.001', '1.01', '1'],
      ['USD', '1.009', '1.01', '1'],
      ['USD', '2.50', '2.5', '2.5'],
      ['JPY', '100.01', '101', '100'],
      ['BTC', '0.123456781', '0.12345679', '0.12345678'],
      ['ETH', '1.0000000000000000001', '1.000000000000000001', '1'],
      ['USDC', '3.1234561', '3.123457', '3.123456'],
    ];
    for (const [currency, amount, fee, payout] of cases) {
      expect(roundFee(new Money(amount), currency).toFixed(), `${currency} fee of ${amount}`).toBe(fee);
      expect(roundPayout(new Money(amount), currency).toFixed(), `${currency} payout of ${amount}`).toBe(
        payout,
      );
    }
  });

  it('knows the scales of API.md and refuses an unknown currency', () => {
    expect([currencyScale('USD'), currencyScale('JPY'), currencyScale('BTC'), currencyScale('ETH')]).toEqual([
      2, 0, 8, 18,
    ]);
    expect(isKnownCurrency('EUR')).toBe(true);
    expect(isKnownCurrency('XYZ')).toBe(false);
    expect(isKnownCurrency('toString')).toBe(false);
    const error = rejection(() => currencyScale('XYZ'));
    expect(error).toMatchObject({
      errorCode: 'validation.unsupportedCurrency',
      problematicField: 'currency',
    });
    expect(() => roundFee(new Money(1), 'XYZ')).toThrow(ApiError);
    expect(() => currencyScale('constructor')).toThrow(ApiError);
  });

  it('does decimal arithmetic exactly', () => {
    expect(new Money('0.1').plus('0.2').toFixed()).toBe('0.3');
    expect(new Money('1').div(3).times(3).toFixed(2)).toBe('1.00');
    expect(isMoney(new Money(1))).toBe(true);
    expect(isMoney(1)).toBe(false);
    expect(isMoney('1')).toBe(false);
  });
});
