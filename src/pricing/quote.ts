import type { Money } from '../platform/money.ts';
import { pricingErrors } from './errors.ts';
import type { FeeRule, FeeSchedule } from './fees.ts';
import type { PriceSnapshot } from './prices.ts';
import { type DerivedRate, deriveRate, type RateDerivation, ratesFrom } from './rates.ts';
import { chargeUp, feeUp, payoutDown, unitOf } from './rounding.ts';

export interface QuoteInput {
  sourceCurrency: string;
  destCurrency: string;
  paymentMethod: string;
  /** The one amount the customer fixed, and the request field it came from (for error messages). */
  amount: { side: 'source' | 'dest'; value: Money; field: string };
  amountIncludeFees: boolean;
}

/** Spec §2.3's quote object. */
export interface Quote {
  sourceCurrency: string;
  /** Charged, fees included. */
  sourceAmount: Money;
  sourceAmountWithoutFees: Money;
  destCurrency: string;
  destAmount: Money;
  /** Destination units per one source unit. */
  exchangeRate: Money;
  equivalencies: Record<string, Money>;
  fees: Record<string, Money>;
}

export interface PricedQuote {
  quote: Quote;
  derivation: RateDerivation;
}

interface Pricing {
  rule: FeeRule;
  networkFee: Money;
  derived: DerivedRate;
  /** The network fee expressed in the source currency, rounded up. */
  networkFeeInSource: Money;
}

function pricingFor(input: QuoteInput, snapshot: PriceSnapshot, schedule: FeeSchedule): Pricing {
  const rules = schedule.methods.get(input.paymentMethod);
  if (!rules) throw pricingErrors.unsupportedPaymentMethod('paymentMethod', input.paymentMethod);
  const rule = rules.get(input.sourceCurrency);
  if (!rule) {
    throw pricingErrors.unsupportedCurrency(
      'sourceCurrency',
      input.sourceCurrency,
      `cannot be paid with ${input.paymentMethod}`,
    );
  }
  const networkFee = schedule.networkFees.get(input.destCurrency);
  if (!networkFee) throw pricingErrors.unsupportedCurrency('destCurrency', input.destCurrency, 'is not sold');
  const derived = deriveRate(snapshot, input.sourceCurrency, input.destCurrency);
  const networkFeeInSource = feeUp(networkFee.div(derived.rate), input.sourceCurrency);
  return { rule, networkFee, derived, networkFeeInSource };
}

function sourceFee(rule: FeeRule, withoutFees: Money, currency: string): Money {
  return feeUp(withoutFees.mul(rule.percent).div(100).add(rule.flat), currency);
}

/**
 * The largest sourceAmountWithoutFees whose total (itself + fees) fits in `total`: the algebraic
 * answer rounded down, then nudged by single units, since each fee is rounded separately.
 */
function largestWithoutFees(total: Money, pricing: Pricing, currency: string, field: string): Money {
  const { rule, networkFeeInSource } = pricing;
  const unit = unitOf(currency);
  const fits = (w: Money) =>
    w
      .add(sourceFee(rule, w, currency))
      .add(networkFeeInSource)
      .lte(total);
  let w = payoutDown(
    total.sub(networkFeeInSource).sub(rule.flat).div(rule.percent.div(100).add(1)),
    currency,
  );
  while (w.gt(0) && !fits(w)) w = w.sub(unit);
  while (fits(w.add(unit))) w = w.add(unit);
  if (w.lte(0)) throw pricingErrors.feesExceedAmount(field);
  return w;
}

/**
 * The one quote function (API.md decision 2), used by reservations, the partner quote endpoint,
 * card orders and transfers. With W = sourceAmountWithoutFees and r = exchangeRate:
 *   destAmount = W × r (rounded down), sourceAmount = W + fees[source] + fees[dest] ÷ r.
 * - sourceAmount S, fees on top:        W = S.
 * - sourceAmount S, fees included:      sourceAmount = S; W is the most that S pays for.
 * - destAmount D, fees on top:          destAmount = D; W = D ÷ r rounded up.
 * - destAmount D, fees included:        the customer gets D minus the fees: the total is D's
 *                                       source value (rounded up) and W what that total pays for.
 * When fees are included, any unit left over by the separate roundings goes to fees[source]
 * (at most one unit), so sourceAmount is exactly what was asked.
 */
export function computeQuote(input: QuoteInput, snapshot: PriceSnapshot, schedule: FeeSchedule): PricedQuote {
  const src = input.sourceCurrency;
  const dest = input.destCurrency;
  const pricing = pricingFor(input, snapshot, schedule);
  const rate = pricing.derived.rate;
  const given = input.amount.value;
  let withoutFees: Money;
  let total: Money | undefined;
  if (input.amount.side === 'source') {
    total = input.amountIncludeFees ? given : undefined;
    withoutFees = total ? largestWithoutFees(total, pricing, src, input.amount.field) : given;
  } else if (input.amountIncludeFees) {
    total = chargeUp(given.div(rate), src);
    withoutFees = largestWithoutFees(total, pricing, src, input.amount.field);
  } else {
    withoutFees = chargeUp(given.div(rate), src);
  }
  const destAmount =
    input.amount.side === 'dest' && !input.amountIncludeFees
      ? given
      : payoutDown(withoutFees.mul(rate), dest);
  if (destAmount.lte(0)) throw pricingErrors.feesExceedAmount(input.amount.field);
  const feeInSource = total
    ? total.sub(withoutFees).sub(pricing.networkFeeInSource)
    : sourceFee(pricing.rule, withoutFees, src);
  const sourceAmount = total ?? withoutFees.add(feeInSource).add(pricing.networkFeeInSource);
  checkOrderBounds(pricing.rule, sourceAmount, src, input.amount.field);
  return {
    quote: {
      sourceCurrency: src,
      sourceAmount,
      sourceAmountWithoutFees: withoutFees,
      destCurrency: dest,
      destAmount,
      exchangeRate: rate,
      equivalencies: equivalencies(snapshot, src, sourceAmount),
      fees: { [src]: feeInSource, [dest]: pricing.networkFee },
    },
    derivation: pricing.derived.derivation,
  };
}

function checkOrderBounds(rule: FeeRule, sourceAmount: Money, currency: string, field: string) {
  if (sourceAmount.lt(rule.minOrder))
    throw pricingErrors.orderTooSmall(field, rule.minOrder.toFixed(), currency);
  if (sourceAmount.gt(rule.maxOrder))
    throw pricingErrors.orderTooLarge(field, rule.maxOrder.toFixed(), currency);
}

/** The charged amount in every priced currency (spec §2.3), each at the pair's rate, rounded down. */
function equivalencies(snapshot: PriceSnapshot, src: string, sourceAmount: Money): Record<string, Money> {
  const out: Record<string, Money> = {};
  for (const { code, rate } of ratesFrom(snapshot, src)) {
    out[code] = code === src ? sourceAmount : payoutDown(sourceAmount.mul(rate), code);
  }
  return out;
}
