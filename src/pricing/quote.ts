import { Money } from '../platform/money.ts';
import { pricingErrors } from './errors.ts';
import type { FeeRule, FeeSchedule } from './fees.ts';
import type { PriceSnapshot } from './prices.ts';
import { type DerivedRate, deriveRate, type RateDerivation, toDest, toSource, usdPricesOf } from './rates.ts';
import { mulDivRounded, payoutDown, unitOf } from './rounding.ts';

export interface QuoteInput {
  sourceCurrency: string;
  destCurrency: string;
  paymentMethod: string;
  /** The one amount the customer fixed, and the request field it came from (for error messages). */
  amount: { side: 'source' | 'dest'; value: Money; field: string };
  amountIncludeFees: boolean;
}

/** The quote object of docs/contract.md (Reservations and quotes). */
export interface Quote {
  sourceCurrency: string;
  /** Charged, fees included. */
  sourceAmount: Money;
  sourceAmountWithoutFees: Money;
  destCurrency: string;
  destAmount: Money;
  /** Destination units per one source unit, rounded down: shown, never computed with. */
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
  price: DerivedRate;
  /** The network fee's value in the source currency (fees[dest] × P), rounded up. */
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
  const price = deriveRate(snapshot, input.sourceCurrency, input.destCurrency);
  const networkFeeInSource = toSource(price, networkFee, input.sourceCurrency, 'up');
  return { rule, networkFee, price, networkFeeInSource };
}

const HUNDRED = new Money(100);

/** percent of W, rounded up, plus the flat fee (already at the currency's scale). */
function sourceFee(rule: FeeRule, withoutFees: Money, currency: string): Money {
  return mulDivRounded(withoutFees, rule.percent, HUNDRED, currency, 'up').add(rule.flat);
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
 * The one quote function (docs/contract.md, Quote arithmetic), used by reservations, the partner
 * quote endpoint, card orders and transfers. It computes with the exact price P (source units per
 * one destination unit, from the USD prices), never with the shown exchangeRate, and rounds each
 * figure once. With W = sourceAmountWithoutFees:
 *   destAmount = W ÷ P (rounded down), sourceAmount = W + fees[source] + fees[dest] × P (fees up),
 * so W, fees[source] and the network fee's value in the source currency add up to the charge.
 * - sourceAmount S, fees on top:        W = S.
 * - sourceAmount S, fees included:      sourceAmount = S; W is the most that S pays for.
 * - destAmount D, fees on top:          destAmount = D; W = D × P rounded up.
 * - destAmount D, fees included:        the customer gets D minus the fees: the total is D × P
 *                                       (rounded up) and W what that total pays for.
 * When fees are included, any unit left over by the separate roundings goes to fees[source]
 * (at most one unit), so sourceAmount is exactly what was asked.
 */
export function computeQuote(input: QuoteInput, snapshot: PriceSnapshot, schedule: FeeSchedule): PricedQuote {
  const src = input.sourceCurrency;
  const dest = input.destCurrency;
  const pricing = pricingFor(input, snapshot, schedule);
  const price = pricing.price;
  const given = input.amount.value;
  let withoutFees: Money;
  let total: Money | undefined;
  if (input.amount.side === 'source') {
    total = input.amountIncludeFees ? given : undefined;
    withoutFees = total ? largestWithoutFees(total, pricing, src, input.amount.field) : given;
  } else if (input.amountIncludeFees) {
    total = toSource(price, given, src, 'up');
    withoutFees = largestWithoutFees(total, pricing, src, input.amount.field);
  } else {
    withoutFees = toSource(price, given, src, 'up');
  }
  const destAmount =
    input.amount.side === 'dest' && !input.amountIncludeFees
      ? given
      : toDest(price, withoutFees, dest, 'down');
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
      exchangeRate: price.rate,
      equivalencies: equivalencies(snapshot, price.sourceUsd, src, sourceAmount),
      fees: { [src]: feeInSource, [dest]: pricing.networkFee },
    },
    derivation: price.derivation,
  };
}

function checkOrderBounds(rule: FeeRule, sourceAmount: Money, currency: string, field: string) {
  if (sourceAmount.lt(rule.minOrder))
    throw pricingErrors.orderTooSmall(field, rule.minOrder.toFixed(), currency);
  if (sourceAmount.gt(rule.maxOrder))
    throw pricingErrors.orderTooLarge(field, rule.maxOrder.toFixed(), currency);
}

/** The charged amount in every priced currency, each converted exactly and rounded down. */
function equivalencies(
  snapshot: PriceSnapshot,
  sourceUsd: Money,
  src: string,
  sourceAmount: Money,
): Record<string, Money> {
  const out: Record<string, Money> = {};
  for (const { code, usdPrice } of usdPricesOf(snapshot)) {
    out[code] = code === src ? sourceAmount : mulDivRounded(sourceAmount, sourceUsd, usdPrice, code, 'down');
  }
  return out;
}
