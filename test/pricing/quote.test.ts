import type { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/platform/errors.ts';
import { currencyScale, Money } from '../../src/platform/money.ts';
import { DEFAULT_USD_PRICES } from '../../src/pricing/default-prices.ts';
import { DEFAULT_FEE_SCHEDULE, type FeeScheduleJson, parseFeeSchedule } from '../../src/pricing/fees.ts';
import type { PriceSnapshot } from '../../src/pricing/prices.ts';
import { computeQuote, type Quote, type QuoteInput } from '../../src/pricing/quote.ts';
import { deriveRate } from '../../src/pricing/rates.ts';
import { mulDivRounded } from '../../src/pricing/rounding.ts';

const snapshotOf = (prices: Record<string, string>): PriceSnapshot => ({
  usdPrices: new Map(Object.entries(prices).map(([code, price]) => [code, new Money(price)])),
  asOfMs: 1,
  source: 'reference',
});
const defaults = snapshotOf(DEFAULT_USD_PRICES);
const schedule = parseFeeSchedule(DEFAULT_FEE_SCHEDULE);
const m = (text: string) => new Money(text);

function input(partial: Partial<QuoteInput> & { amount: QuoteInput['amount'] }): QuoteInput {
  return {
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
    paymentMethod: 'debit-card',
    amountIncludeFees: false,
    ...partial,
  };
}

describe('worked examples (decision 2, default schedule: 2.9 % + 0.30, ETH network fee 0.0004)', () => {
  it('sourceAmount 100 USD, fees on top: 100 buys ETH, the customer pays 100 + 3.20 + 1.20', () => {
    const { quote, derivation } = computeQuote(
      input({ amount: { side: 'source', value: m('100'), field: 'sourceAmount' } }),
      defaults,
      schedule,
    );
    expect(quote.exchangeRate.toFixed()).toBe('0.000333333333333333333');
    expect(quote.sourceAmountWithoutFees.toFixed()).toBe('100');
    // 0.0004 ETH × 3000 USD/ETH = 1.20 USD exactly: the shown rate is never a divisor.
    expect(quote.fees).toEqual({ USD: m('3.2'), ETH: m('0.0004') });
    expect(quote.sourceAmount.toFixed()).toBe('104.4');
    expect(quote.destAmount.toFixed()).toBe('0.033333333333333333');
    expect(quote.equivalencies.USD?.toFixed()).toBe('104.4');
    expect(quote.equivalencies.EUR?.toFixed()).toBe('96.66'); // 104.40 / 1.08 = 96.666…, down
    expect(quote.equivalencies.ETH?.toFixed()).toBe('0.0348'); // 104.40 / 3000 exactly
    expect(derivation).toMatchObject({ via: 'direct', sourceUsdPrice: '1', destUsdPrice: '3000' });
  });

  it('the issue’s case: 25 USD of ETH at 3000 charges 25 + 1.03 + 1.20 = 27.23, not 27.24', () => {
    const { quote } = computeQuote(
      input({ amount: { side: 'source', value: m('25'), field: 'sourceAmount' } }),
      defaults,
      schedule,
    );
    expect(quote.fees.USD?.toFixed()).toBe('1.03'); // 2.9 % of 25 + 0.30 = 1.025, up
    expect(quote.sourceAmount.toFixed(2)).toBe('27.23');
    expect(shownParts(quote, snapshotPrices(defaults, 'USD', 'ETH')).toFixed(2)).toBe('27.23');
  });

  it('sourceAmount 100 USD, fees included: the charge is exactly 100', () => {
    const { quote } = computeQuote(
      input({ amountIncludeFees: true, amount: { side: 'source', value: m('100'), field: 'sourceAmount' } }),
      defaults,
      schedule,
    );
    expect(quote.sourceAmount.toFixed()).toBe('100');
    // The largest W with W + ceil(0.029 W + 0.30) + 1.20 ≤ 100: 95.72 + 3.08 + 1.20 = 100.
    expect(quote.sourceAmountWithoutFees.toFixed()).toBe('95.72');
    expect(quote.fees.USD?.toFixed()).toBe('3.08');
    expect(quote.destAmount.toFixed()).toBe('0.031906666666666666');
  });

  it('destAmount 0.1 ETH, fees on top: exactly 0.1 ETH arrives for exactly 300 USD', () => {
    const { quote } = computeQuote(
      input({ amount: { side: 'dest', value: m('0.1'), field: 'destAmount' } }),
      defaults,
      schedule,
    );
    expect(quote.destAmount.toFixed()).toBe('0.1');
    expect(quote.sourceAmountWithoutFees.toFixed()).toBe('300'); // 0.1 × 3000
    expect(quote.fees.USD?.toFixed()).toBe('9'); // 2.9 % of 300 + 0.30
    expect(quote.sourceAmount.toFixed()).toBe('310.2');
  });

  it('destAmount 0.1 ETH, fees included: the customer gets 0.1 ETH minus the fees', () => {
    const { quote } = computeQuote(
      input({ amountIncludeFees: true, amount: { side: 'dest', value: m('0.1'), field: 'destAmount' } }),
      defaults,
      schedule,
    );
    expect(quote.sourceAmount.toFixed()).toBe('300');
    expect(quote.sourceAmountWithoutFees.toFixed()).toBe('290.08'); // 290.08 + 8.72 + 1.20 = 300
    expect(quote.destAmount.toFixed()).toBe('0.096693333333333333');
  });

  it('cross rates go through USD and say so', () => {
    const { rate, derivation } = deriveRate(defaults, 'EUR', 'BTC');
    expect(rate.toFixed()).toBe('0.000018'); // 1.08 / 60000
    expect(derivation).toEqual({
      source: 'reference',
      asOfMs: 1,
      via: 'USD',
      sourceUsdPrice: '1.08',
      destUsdPrice: '60000',
      formula: 'sourceUsdPrice / destUsdPrice',
    });
  });

  it('refuses orders outside the schedule’s bounds, naming the amount field', () => {
    const tooSmall = () =>
      computeQuote(
        input({ amount: { side: 'source', value: m('1'), field: 'sourceAmount' } }),
        defaults,
        schedule,
      );
    expect(tooSmall).toThrow(
      expect.objectContaining({
        errorCode: 'validation.transactionAmountTooSmall',
        problematicField: 'sourceAmount',
      }),
    );
    const tooLarge = () =>
      computeQuote(
        input({ amount: { side: 'dest', value: m('100'), field: 'destAmount' } }),
        defaults,
        schedule,
      );
    expect(tooLarge).toThrow(
      expect.objectContaining({
        errorCode: 'validation.transactionAmountTooLarge',
        problematicField: 'destAmount',
      }),
    );
  });
});

// ---- Reference arithmetic ---------------------------------------------------------------------

/**
 * The tests' own arithmetic, independent of src/: 200 significant digits hold every product and
 * quotient here far beyond the 18 decimals a figure is rounded to, so rounding those is exact.
 */
const Wide = Money.clone({ precision: 200 });
const wide = (value: Money | string) => new Wide(value.toString());

interface Prices {
  /** USD per source unit and per destination unit; P = destUsd ÷ sourceUsd. */
  srcUsd: string;
  destUsd: string;
}

function snapshotPrices(snapshot: PriceSnapshot, src: string, dest: string): Prices {
  const usd = (code: string) => (code === 'USD' ? '1' : snapshot.usdPrices.get(code)!.toFixed());
  return { srcUsd: usd(src), destUsd: usd(dest) };
}

/** amount × P (source value of a destination amount), rounded to the source currency's scale. */
function timesP(amount: Money, prices: Prices, src: string, rounding: Decimal.Rounding): Money {
  const exact = wide(amount).mul(prices.destUsd).div(prices.srcUsd);
  return new Money(exact.toDecimalPlaces(currencyScale(src), rounding).toFixed());
}

/** amount ÷ P (destination value of a source amount), rounded to the destination's scale. */
function overP(amount: Money, prices: Prices, dest: string, rounding: Decimal.Rounding): Money {
  const exact = wide(amount).mul(prices.srcUsd).div(prices.destUsd);
  return new Money(exact.toDecimalPlaces(currencyScale(dest), rounding).toFixed());
}

/**
 * What a buyer adds up from the quote: the purchase, the source fee and the network fee's value
 * in the source currency (fees[dest] × P, rounded up like every fee).
 */
function shownParts(quote: Quote, prices: Prices): Money {
  const networkInSource = timesP(
    quote.fees[quote.destCurrency]!,
    prices,
    quote.sourceCurrency,
    Money.ROUND_UP,
  );
  return quote.sourceAmountWithoutFees.add(quote.fees[quote.sourceCurrency]!).add(networkInSource);
}

describe('mulDivRounded', () => {
  const decimal = fc
    .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 20 }))
    .map(([digits, places]) => new Money(digits.toString()).div(new Money(10).pow(places)));
  const nonZero = decimal.filter((value) => !value.isZero());

  it('is amount × multiplier ÷ divisor rounded once, up away from zero or down towards it', () => {
    fc.assert(
      fc.property(
        decimal,
        nonZero,
        nonZero,
        fc.constantFrom('USD', 'JPY', 'BTC', 'ETH'),
        fc.constantFrom('up' as const, 'down' as const),
        (amount, multiplier, divisor, currency, direction) => {
          const exact = wide(amount).mul(multiplier.toFixed()).div(divisor.toFixed());
          const expected = exact.toDecimalPlaces(
            currencyScale(currency),
            direction === 'up' ? Money.ROUND_UP : Money.ROUND_DOWN,
          );
          const actual = mulDivRounded(amount, multiplier, divisor, currency, direction);
          expect(actual.eq(expected), `${actual.toFixed()} ≠ ${expected.toFixed()}`).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

// ---- Properties -------------------------------------------------------------------------------

const FIAT = ['USD', 'EUR', 'GBP', 'NOK', 'MXN'];
const CRYPTO = ['BTC', 'ETH', 'USDC', 'DAI', 'MATIC', 'AVAX'];
const unit = (code: string) => new Money(10).pow(-currencyScale(code));
const decimalsOk = (value: Money, code: string) => value.decimalPlaces() <= currencyScale(code);

/** A price between 1e-8 and 1e7 USD with up to 6 significant digits. */
const price = fc
  .tuple(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: -8, max: 1 }))
  .map(([mantissa, exponent]) => new Money(mantissa).mul(new Money(10).pow(exponent)).toFixed());

const scenario = fc.record({
  src: fc.constantFrom(...FIAT),
  dest: fc.constantFrom(...CRYPTO),
  srcPrice: price,
  destPrice: price,
  percent: fc.integer({ min: 0, max: 1000 }).map((bp) => new Money(bp).div(100).toFixed()), // 0–10 %
  flatCents: fc.integer({ min: 0, max: 500 }),
  networkUnits: fc.integer({ min: 0, max: 100_000 }),
  includeFees: fc.boolean(),
  side: fc.constantFrom('source' as const, 'dest' as const),
  amountUnits: fc.bigInt({ min: 1n, max: 10n ** 12n }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function setUp(s: Scenario) {
  const prices: Prices = {
    srcUsd: s.src === 'USD' ? '1' : s.srcPrice,
    destUsd: s.destPrice,
  };
  const snapshot = snapshotOf(
    Object.fromEntries(
      [
        [s.src, s.srcPrice],
        [s.dest, s.destPrice],
      ].filter(([code]) => code !== 'USD'),
    ),
  );
  const networkFee = unit(s.dest).mul(s.networkUnits).toFixed();
  const json: FeeScheduleJson = {
    methods: {
      'debit-card': {
        [s.src]: {
          percent: s.percent,
          flat: new Money(s.flatCents).div(100).toFixed(),
          minOrder: '0.01',
          maxOrder: '1'.padEnd(22, '0'),
        },
      },
    },
    networkFees: { [s.dest]: networkFee },
  };
  const amountCurrency = s.side === 'source' ? s.src : s.dest;
  const value = unit(amountCurrency).mul(s.amountUnits.toString());
  return {
    snapshot,
    prices,
    fees: parseFeeSchedule(json),
    request: input({
      sourceCurrency: s.src,
      destCurrency: s.dest,
      amountIncludeFees: s.includeFees,
      amount: { side: s.side, value, field: `${s.side}Amount` },
    }),
    value,
  };
}

/** Quotes whose amount cannot even cover the fees are refused with a 400: that is not a property failure. */
function quoteOrSkip(s: Scenario) {
  const { snapshot, fees, request, value, prices } = setUp(s);
  try {
    return { ...computeQuote(request, snapshot, fees), value, prices };
  } catch (error) {
    if (error instanceof ApiError && error.errorCode === 'validation.transactionAmountTooSmall')
      return undefined;
    throw error;
  }
}

describe('quote properties (fast-check)', () => {
  it('the shown parts add up exactly to the charge, in all four cases', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const priced = quoteOrSkip(s);
        if (!priced) return;
        const q = priced.quote;
        expect(shownParts(q, priced.prices).toFixed()).toBe(q.sourceAmount.toFixed());
      }),
      { numRuns: 1000 },
    );
  });

  it('every figure is at its currency’s scale, nothing negative', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const priced = quoteOrSkip(s);
        if (!priced) return;
        const q = priced.quote;
        const feeSrc = q.fees[s.src]!;
        const feeDest = q.fees[s.dest]!;
        for (const value of [q.sourceAmount, q.sourceAmountWithoutFees, feeSrc]) {
          expect(decimalsOk(value, s.src)).toBe(true);
        }
        expect(decimalsOk(q.destAmount, s.dest) && decimalsOk(feeDest, s.dest)).toBe(true);
        expect(q.sourceAmountWithoutFees.gt(0) && q.destAmount.gt(0)).toBe(true);
        expect(feeSrc.gte(0) && feeDest.gte(0)).toBe(true);
        for (const [code, value] of Object.entries(q.equivalencies)) {
          expect(value.gte(0) && decimalsOk(value, code)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('each case is what decision 2 says, computed from the exact price', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const priced = quoteOrSkip(s);
        if (!priced) return;
        const { quote: q, value, prices } = priced;
        if (s.side === 'source' && !s.includeFees) expect(q.sourceAmountWithoutFees.eq(value)).toBe(true);
        if (s.side === 'source' && s.includeFees) expect(q.sourceAmount.eq(value)).toBe(true);
        if (s.side === 'dest' && !s.includeFees) {
          expect(q.destAmount.eq(value)).toBe(true);
          // The customer pays for everything received, rounded up once.
          expect(q.sourceAmountWithoutFees.eq(timesP(value, prices, s.src, Money.ROUND_UP))).toBe(true);
        } else {
          expect(q.destAmount.eq(overP(q.sourceAmountWithoutFees, prices, s.dest, Money.ROUND_DOWN))).toBe(
            true,
          );
        }
        if (s.side === 'dest' && s.includeFees) {
          expect(q.sourceAmount.eq(timesP(value, prices, s.src, Money.ROUND_UP))).toBe(true);
          expect(q.destAmount.lte(value)).toBe(true);
        }
        // The rate is shown only: 1 ÷ P, 18 significant digits, rounded down.
        const shownRate = wide(prices.srcUsd).div(prices.destUsd).toSignificantDigits(18, Money.ROUND_DOWN);
        expect(q.exchangeRate.toFixed()).toBe(shownRate.toFixed());
        // Equivalencies: the charge at each currency's exact price, rounded down.
        expect(q.equivalencies[s.dest]!.eq(overP(q.sourceAmount, prices, s.dest, Money.ROUND_DOWN))).toBe(
          true,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('rounding never favours the customer, and the house never gains more than one unit per figure', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const priced = quoteOrSkip(s);
        if (!priced) return;
        const { quote: q, prices } = priced;
        const srcUnit = unit(s.src);
        const flat = new Money(s.flatCents).div(100);
        const exactFee = wide(q.sourceAmountWithoutFees).mul(s.percent).div(100).add(flat.toFixed());
        const feeSrc = wide(q.fees[s.src]!);
        // Fees are never below their exact value; rounding up adds less than one unit, and the
        // fees-included cases may add one more unit left over from rounding the parts separately.
        expect(feeSrc.gte(exactFee)).toBe(true);
        expect(feeSrc.lt(exactFee.add(srcUnit.mul(s.includeFees ? 2 : 1).toFixed()))).toBe(true);
        if (s.includeFees) {
          // sourceAmountWithoutFees is the most the total pays for: one unit more would not fit.
          const more = q.sourceAmountWithoutFees.add(srcUnit);
          const moreFee = wide(more)
            .mul(s.percent)
            .div(100)
            .toDecimalPlaces(currencyScale(s.src), Money.ROUND_UP);
          const network = timesP(q.fees[s.dest]!, prices, s.src, Money.ROUND_UP);
          expect(
            moreFee
              .add(flat.toFixed())
              .add(more.toFixed())
              .add(network.toFixed())
              .gt(q.sourceAmount.toFixed()),
          ).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
