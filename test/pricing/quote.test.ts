import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/platform/errors.ts';
import { currencyScale, Money } from '../../src/platform/money.ts';
import { DEFAULT_USD_PRICES } from '../../src/pricing/default-prices.ts';
import { DEFAULT_FEE_SCHEDULE, type FeeScheduleJson, parseFeeSchedule } from '../../src/pricing/fees.ts';
import type { PriceSnapshot } from '../../src/pricing/prices.ts';
import { computeQuote, type QuoteInput } from '../../src/pricing/quote.ts';
import { deriveRate } from '../../src/pricing/rates.ts';

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

describe('worked examples (API.md decision 2, default schedule: 2.9 % + 0.30, ETH network fee 0.0004)', () => {
  it('sourceAmount 100 USD, fees on top: 100 buys ETH, the customer pays 100 + 3.20 + 1.21', () => {
    const { quote, derivation } = computeQuote(
      input({ amount: { side: 'source', value: m('100'), field: 'sourceAmount' } }),
      defaults,
      schedule,
    );
    expect(quote.exchangeRate.toFixed()).toBe('0.000333333333333333333');
    expect(quote.sourceAmountWithoutFees.toFixed()).toBe('100');
    // 0.0004 ETH ÷ 0.000333333333333333333 = 1.2000000000000000012 USD, rounded up.
    expect(quote.fees).toEqual({ USD: m('3.2'), ETH: m('0.0004') });
    expect(quote.sourceAmount.toFixed()).toBe('104.41');
    expect(quote.destAmount.toFixed()).toBe('0.033333333333333333');
    expect(quote.equivalencies.USD?.toFixed()).toBe('104.41');
    expect(quote.equivalencies.EUR?.toFixed()).toBe('96.67'); // 104.41 / 1.08 = 96.675…, down
    expect(derivation).toMatchObject({ via: 'direct', sourceUsdPrice: '1', destUsdPrice: '3000' });
  });

  it('sourceAmount 100 USD, fees included: the charge is exactly 100', () => {
    const { quote } = computeQuote(
      input({ amountIncludeFees: true, amount: { side: 'source', value: m('100'), field: 'sourceAmount' } }),
      defaults,
      schedule,
    );
    expect(quote.sourceAmount.toFixed()).toBe('100');
    // The largest W with W + ceil(0.029 W + 0.30) + 1.21 ≤ 100: 95.71 + 3.08 + 1.21 = 100.
    expect(quote.sourceAmountWithoutFees.toFixed()).toBe('95.71');
    expect(quote.fees.USD?.toFixed()).toBe('3.08');
    expect(quote.destAmount.toFixed()).toBe('0.031903333333333333');
  });

  it('destAmount 0.1 ETH, fees on top: exactly 0.1 ETH arrives', () => {
    const { quote } = computeQuote(
      input({ amount: { side: 'dest', value: m('0.1'), field: 'destAmount' } }),
      defaults,
      schedule,
    );
    expect(quote.destAmount.toFixed()).toBe('0.1');
    expect(quote.sourceAmountWithoutFees.toFixed()).toBe('300.01'); // 0.1 ÷ r = 300.0000…03, up
    expect(quote.fees.USD?.toFixed()).toBe('9.01'); // 2.9 % of 300.01 + 0.30 = 9.00029, up
    expect(quote.sourceAmount.toFixed()).toBe('310.23');
  });

  it('destAmount 0.1 ETH, fees included: the customer gets 0.1 ETH minus the fees', () => {
    const { quote } = computeQuote(
      input({ amountIncludeFees: true, amount: { side: 'dest', value: m('0.1'), field: 'destAmount' } }),
      defaults,
      schedule,
    );
    expect(quote.sourceAmount.toFixed()).toBe('300.01');
    expect(quote.destAmount.lt('0.1')).toBe(true);
    expect(quote.sourceAmountWithoutFees.add(quote.fees.USD!).add('1.21').toFixed()).toBe('300.01');
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

// ---- Properties -------------------------------------------------------------------------------

const FIAT = ['USD', 'EUR', 'GBP', 'NOK', 'MXN'];
const CRYPTO = ['BTC', 'ETH', 'USDC', 'DAI', 'MATIC', 'AVAX'];
const unit = (code: string) => new Money(10).pow(-currencyScale(code));
const decimalsOk = (value: Money, code: string) => value.decimalPlaces() <= currencyScale(code);

/** A price between 1e-4 and 1e6 USD with up to 6 significant digits. */
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
  const { snapshot, fees, request, value } = setUp(s);
  try {
    return { ...computeQuote(request, snapshot, fees), value };
  } catch (error) {
    if (error instanceof ApiError && error.errorCode === 'validation.transactionAmountTooSmall')
      return undefined;
    throw error;
  }
}

describe('quote properties (fast-check)', () => {
  it('amounts and fees reconcile to the smallest unit, each at its currency’s scale, nothing negative', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const priced = quoteOrSkip(s);
        if (!priced) return;
        const q = priced.quote;
        const r = q.exchangeRate;
        const feeSrc = q.fees[s.src]!;
        const feeDest = q.fees[s.dest]!;
        const networkInSource = feeDest.div(r).toDecimalPlaces(currencyScale(s.src), Money.ROUND_UP);
        expect(q.sourceAmount.eq(q.sourceAmountWithoutFees.add(feeSrc).add(networkInSource))).toBe(true);
        for (const value of [q.sourceAmount, q.sourceAmountWithoutFees, feeSrc]) {
          expect(decimalsOk(value, s.src)).toBe(true);
        }
        expect(decimalsOk(q.destAmount, s.dest) && decimalsOk(feeDest, s.dest)).toBe(true);
        expect(q.sourceAmountWithoutFees.gt(0) && q.destAmount.gt(0)).toBe(true);
        expect(feeSrc.gte(0) && feeDest.gte(0)).toBe(true);
        for (const value of Object.values(q.equivalencies)) expect(value.gte(0)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('each case is what API.md decision 2 says', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const priced = quoteOrSkip(s);
        if (!priced) return;
        const { quote: q, value } = priced;
        const exactDest = q.sourceAmountWithoutFees.mul(q.exchangeRate);
        if (s.side === 'source' && !s.includeFees) expect(q.sourceAmountWithoutFees.eq(value)).toBe(true);
        if (s.side === 'source' && s.includeFees) expect(q.sourceAmount.eq(value)).toBe(true);
        if (s.side === 'dest' && !s.includeFees) {
          expect(q.destAmount.eq(value)).toBe(true);
          // The customer pays for everything received, and at most one source unit more.
          expect(exactDest.gte(value)).toBe(true);
          expect(q.sourceAmountWithoutFees.sub(unit(s.src)).mul(q.exchangeRate).lt(value)).toBe(true);
        } else {
          expect(q.destAmount.eq(exactDest.toDecimalPlaces(currencyScale(s.dest), Money.ROUND_DOWN))).toBe(
            true,
          );
        }
        if (s.side === 'dest' && s.includeFees) expect(q.destAmount.lte(value)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('rounding never favours the customer, and the house never gains more than one unit per figure', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const priced = quoteOrSkip(s);
        if (!priced) return;
        const q = priced.quote;
        const srcUnit = unit(s.src);
        const exactFee = q.sourceAmountWithoutFees
          .mul(s.percent)
          .div(100)
          .add(new Money(s.flatCents).div(100));
        const feeSrc = q.fees[s.src]!;
        // Fees are never below their exact value; rounding up adds less than one unit, and the
        // fees-included cases may add one more unit left over from rounding the parts separately.
        expect(feeSrc.gte(exactFee)).toBe(true);
        expect(feeSrc.lt(exactFee.add(srcUnit.mul(s.includeFees ? 2 : 1)))).toBe(true);
        // The payout is never above its exact value and less than one unit below it.
        const exactDest = q.sourceAmountWithoutFees.mul(q.exchangeRate);
        if (!(s.side === 'dest' && !s.includeFees)) {
          expect(q.destAmount.lte(exactDest)).toBe(true);
          expect(exactDest.sub(q.destAmount).lt(unit(s.dest))).toBe(true);
        }
        if (s.includeFees) {
          // sourceAmountWithoutFees is the most the total pays for: one unit more would not fit.
          const more = q.sourceAmountWithoutFees.add(srcUnit);
          const moreFee = more.mul(s.percent).div(100).add(new Money(s.flatCents).div(100));
          const networkInSource = q.fees[s.dest]!.div(q.exchangeRate).toDecimalPlaces(
            currencyScale(s.src),
            Money.ROUND_UP,
          );
          const total = more
            .add(moreFee.toDecimalPlaces(currencyScale(s.src), Money.ROUND_UP))
            .add(networkInSource);
          expect(total.gt(q.sourceAmount)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
