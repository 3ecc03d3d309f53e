import { Decimal } from 'decimal.js';
import { currencyScale, Money, roundFee, roundPayout } from '../platform/money.ts';

/**
 * Every rounding a quote does, in one place, and always in the house's favour by at most one
 * smallest unit of the currency concerned (DESIGN.md "Money"):
 *
 * | figure                                   | direction | why                                        |
 * |------------------------------------------|-----------|--------------------------------------------|
 * | fees (source and network, converted)     | up        | the house never gives away part of a fee   |
 * | destAmount (what the customer receives)  | down      | never pay out a fraction not received      |
 * | source needed to buy an exact destAmount | up        | the customer pays for all they receive     |
 * | exchange rate (dest per source unit)     | down      | to RATE_DIGITS significant digits          |
 * | equivalencies                            | down      | informative; never overstate the value     |
 */
export const RATE_DIGITS = 18;

export const feeUp = roundFee;
export const payoutDown = roundPayout;

export function chargeUp(amount: Money, currency: string): Money {
  return amount.toDecimalPlaces(currencyScale(currency), Decimal.ROUND_UP);
}

export function rateDown(rate: Money): Money {
  return rate.toSignificantDigits(RATE_DIGITS, Decimal.ROUND_DOWN);
}

/** One smallest unit of the currency: 0.01 USD, 1 satoshi, 1 wei. */
export function unitOf(currency: string): Money {
  return new Money(10).pow(-currencyScale(currency));
}
