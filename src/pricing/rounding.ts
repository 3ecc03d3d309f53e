import { Decimal } from 'decimal.js';
import { currencyScale, Money, roundPayout } from '../platform/money.ts';

/**
 * Every rounding a quote does, in one place, and always in the house's favour by at most one
 * smallest unit of the currency concerned (DESIGN.md "Money"). Each figure is rounded once, from
 * exact inputs: amounts, fee rates and the USD prices themselves, never from a rounded rate.
 *
 * | figure                                   | direction | why                                        |
 * |------------------------------------------|-----------|--------------------------------------------|
 * | fees (source and network, converted)     | up        | the house never gives away part of a fee   |
 * | destAmount (what the customer receives)  | down      | never pay out a fraction not received      |
 * | source needed to buy an exact destAmount | up        | the customer pays for all they receive     |
 * | exchange rate (dest per source unit)     | down      | to RATE_DIGITS significant digits, shown only |
 * | equivalencies                            | down      | informative; never overstate the value     |
 */
export const RATE_DIGITS = 18;

export const payoutDown = roundPayout;

export type Direction = 'up' | 'down';

export function rateDown(rate: Money): Money {
  return rate.toSignificantDigits(RATE_DIGITS, Decimal.ROUND_DOWN);
}

/** One smallest unit of the currency: 0.01 USD, 1 satoshi, 1 wei. */
export function unitOf(currency: string): Money {
  return new Money(10).pow(-currencyScale(currency));
}

/**
 * amount × multiplier ÷ divisor, rounded once to the currency's scale, `up` (away from zero) or
 * `down` (towards zero). Exact whatever the digits: the operands become integers and the one
 * division is an integer division, so no intermediate figure is rounded. Conversions between
 * currencies go through here with USD prices as multiplier and divisor, and percentages with 100.
 */
export function mulDivRounded(
  amount: Money,
  multiplier: Money,
  divisor: Money,
  currency: string,
  direction: Direction,
): Money {
  const scale = currencyScale(currency);
  const a = scaledOf(amount);
  const m = scaledOf(multiplier);
  const d = scaledOf(divisor);
  // amount × multiplier ÷ divisor × 10^scale, as a fraction of two integers.
  const shift = scale - a.places - m.places + d.places;
  let numerator = a.digits * m.digits;
  let denominator = d.digits;
  if (shift >= 0) numerator *= powerOfTen(shift);
  else denominator *= powerOfTen(-shift);
  if (denominator === 0n) throw new RangeError('mulDivRounded: division by zero');
  let units = numerator / denominator;
  if (direction === 'up' && numerator % denominator !== 0n) {
    units += numerator < 0n === denominator < 0n ? 1n : -1n;
  }
  return fromUnits(units, scale);
}

/** A decimal as an integer and the power of ten it is scaled by: 12.34 → 1234n, 2. */
interface Scaled {
  digits: bigint;
  places: number;
}

/**
 * Prices, fee rates and a quote's amounts are converted many times each (every equivalency of a
 * quote divides by another price): their integer form is kept with the (immutable) value.
 */
const scaledForms = new WeakMap<Money, Scaled>();

function scaledOf(value: Money): Scaled {
  let scaled = scaledForms.get(value);
  if (scaled === undefined) {
    // toFixed() writes every digit and never an exponent.
    const text = value.toFixed();
    const point = text.indexOf('.');
    scaled =
      point < 0
        ? { digits: BigInt(text), places: 0 }
        : { digits: BigInt(text.slice(0, point) + text.slice(point + 1)), places: text.length - point - 1 };
    scaledForms.set(value, scaled);
  }
  return scaled;
}

const POWERS_OF_TEN = Array.from({ length: 80 }, (_, exponent) => 10n ** BigInt(exponent));

function powerOfTen(exponent: number): bigint {
  return POWERS_OF_TEN[exponent] ?? 10n ** BigInt(exponent);
}

function fromUnits(units: bigint, scale: number): Money {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return new Money(negative ? `-${text}` : text);
}
