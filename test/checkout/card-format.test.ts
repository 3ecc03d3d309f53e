import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  displayAmount,
  displayPrecision,
  feeBreakdown,
  feeLineText,
  moneyText,
} from '../../src/checkout/format.ts';
import { Money } from '../../src/platform/money.ts';
import type { Quote } from '../../src/pricing/quote.ts';
import { BRAND_RANGES } from '../../src/web/assets/card-brands.ts';
import { CARD_FORMAT_JS } from '../../src/web/assets/card-format-js.ts';

/**
 * The checkout's formatting helpers: the browser's card helpers run from the very text the
 * script asset ships (in a fresh VM context, as the page defines them), and the server's amount
 * and fee helpers.
 */

interface CardFormat {
  brandOf(text: string): { brand: string; name: string } | null;
  groupNumber(text: string): string;
  caretAfterDigits(grouped: string, digits: number): number;
  formatExpiry(text: string): string;
  parseExpiry(text: string): { month: string; year: string } | null;
}

const card = runInNewContext(
  `var BRAND_RANGES = ${JSON.stringify(BRAND_RANGES)};\n${CARD_FORMAT_JS}\nCardFormat`,
) as CardFormat;

describe('card number grouping', () => {
  it('groups digits by four as typed and drops anything else', () => {
    expect(card.groupNumber('4111111111111111')).toBe('4111 1111 1111 1111');
    expect(card.groupNumber('41111')).toBe('4111 1');
    expect(card.groupNumber('4111')).toBe('4111');
    expect(card.groupNumber('4111-1111 11x11')).toBe('4111 1111 1111');
    expect(card.groupNumber('4'.repeat(25))).toBe('4444 4444 4444 4444 444');
  });

  it('keeps the caret after the same digits once regrouped', () => {
    expect(card.caretAfterDigits('4111 1', 5)).toBe(6);
    expect(card.caretAfterDigits('4111 1111', 4)).toBe(4);
    expect(card.caretAfterDigits('4111', 4)).toBe(4);
  });
});

describe('brand detection from the server’s BIN table', () => {
  it('knows Visa and both Mastercard ranges, nothing else', () => {
    expect(BRAND_RANGES.map((r) => [r.from, r.to, r.brand])).toEqual([
      [2221, 2720, 'MASTERCARD'],
      [4000, 4999, 'VISA'],
      [5100, 5599, 'MASTERCARD'],
    ]);
  });

  it('names the brand as soon as the digits typed decide it', () => {
    expect(card.brandOf('4')).toEqual({ brand: 'VISA', name: 'Visa' });
    expect(card.brandOf('5')).toEqual({ brand: 'MASTERCARD', name: 'Mastercard' });
    expect(card.brandOf('5200 8282')?.brand).toBe('MASTERCARD');
    expect(card.brandOf('2221 00')?.brand).toBe('MASTERCARD');
    expect(card.brandOf('2720')?.brand).toBe('MASTERCARD');
    expect(card.brandOf('2721')).toBeNull();
    expect(card.brandOf('22')?.brand).toBe('MASTERCARD');
    expect(card.brandOf('221')).toBeNull();
    expect(card.brandOf('3782 822463 10005')).toBeNull();
    expect(card.brandOf('6011')).toBeNull();
    expect(card.brandOf('')).toBeNull();
  });
});

describe('expiry', () => {
  it('reads MM/YY and MM/YYYY as the month and four-digit year the server needs', () => {
    expect(card.parseExpiry('12/30')).toEqual({ month: '12', year: '2030' });
    expect(card.parseExpiry('04/2031')).toEqual({ month: '04', year: '2031' });
    expect(card.parseExpiry(' 04 / 31 ')).toEqual({ month: '04', year: '2031' });
    expect(card.parseExpiry('0431')).toEqual({ month: '04', year: '2031' });
    expect(card.parseExpiry('13/30')).toBeNull();
    expect(card.parseExpiry('00/30')).toBeNull();
    expect(card.parseExpiry('1/30')).toBeNull();
    expect(card.parseExpiry('12/203')).toBeNull();
  });

  it('adds the slash as the buyer types', () => {
    expect(card.formatExpiry('1230')).toBe('12/30');
    expect(card.formatExpiry('12/30')).toBe('12/30');
    expect(card.formatExpiry('122030')).toBe('12/2030');
    expect(card.formatExpiry('4')).toBe('04');
    expect(card.formatExpiry('1')).toBe('1');
    expect(card.formatExpiry('12/')).toBe('12/');
  });
});

describe('display precision', () => {
  it('shows at most 8 decimals, rounded down, cents always written', () => {
    expect(displayPrecision('USD')).toBe(2);
    expect(displayPrecision('ETH')).toBe(8);
    expect(displayPrecision('USDC')).toBe(6);
    expect(displayAmount(new Money('0.008333333333333333'), 'ETH')).toBe('0.00833333');
    expect(displayAmount(new Money('0.008333339999999999'), 'ETH')).toBe('0.00833333');
    expect(displayAmount(new Money('0.005'), 'ETH')).toBe('0.005');
    expect(displayAmount(new Money('2'), 'ETH')).toBe('2.00');
    expect(displayAmount(new Money('3.2'), 'USD')).toBe('3.20');
    expect(displayAmount(new Money('1500'), 'JPY')).toBe('1500');
    expect(displayAmount(new Money('0.00000001'), 'BTC')).toBe('0.00000001');
    expect(moneyText(new Money('20'), 'USD')).toBe('20.00 USD');
  });
});

function quote(over: Partial<Quote> = {}): Quote {
  return {
    sourceCurrency: 'USD',
    sourceAmount: new Money('20'),
    sourceAmountWithoutFees: new Money('18.84'),
    destCurrency: 'ETH',
    destAmount: new Money('0.006279999999999999'),
    exchangeRate: new Money('0.00033333'),
    equivalencies: {},
    fees: { USD: new Money('0.77'), ETH: new Money('0.00013') },
    ...over,
  };
}

describe('fee breakdown', () => {
  it('lists purchase, processing fee and network fee that add up exactly to the charge', () => {
    const breakdown = feeBreakdown(quote());
    expect(breakdown.lines.map((line) => [line.key, line.amount.toFixed()])).toEqual([
      ['purchase', '18.84'],
      ['processingFee', '0.77'],
      ['networkFee', '0.39'],
    ]);
    const sum = breakdown.lines.reduce((total, line) => total.plus(line.amount), new Money(0));
    expect(sum.eq(breakdown.total)).toBe(true);
    expect(breakdown.networkFeeNative?.amount.toFixed()).toBe('0.00013');
    // The texts shown add up too.
    const shown = breakdown.lines.map((line) => new Money(feeLineText(line.amount, 'USD').split(' ')[0]!));
    expect(shown.reduce((a, b) => a.plus(b)).eq(new Money('20'))).toBe(true);
  });

  it('adds up for any split of a charge, to the last cent', () => {
    for (const [total, without, fee] of [
      ['100.00', '95.51', '3.87'],
      ['0.50', '0.01', '0.49'],
      ['9999.99', '9700.00', '290.00'],
    ] as const) {
      const breakdown = feeBreakdown(
        quote({
          sourceAmount: new Money(total),
          sourceAmountWithoutFees: new Money(without),
          fees: { USD: new Money(fee) },
        }),
      );
      const sum = breakdown.lines.reduce((acc, line) => acc.plus(line.amount), new Money(0));
      expect(sum.toFixed(2)).toBe(total);
      expect(breakdown.networkFeeNative).toBeNull();
    }
  });

  it('refuses a quote whose fees exceed its charge rather than show a negative line', () => {
    expect(() => feeBreakdown(quote({ sourceAmountWithoutFees: new Money('19.50') }))).toThrow(/exceed/);
  });

  it('writes out a line in full rather than round it away', () => {
    expect(feeLineText(new Money('0.123456789'), 'ETH')).toBe('0.123456789 ETH');
    expect(feeLineText(new Money('0.12'), 'USD')).toBe('0.12 USD');
  });
});
