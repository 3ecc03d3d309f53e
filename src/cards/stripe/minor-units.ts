import { Money } from '../../platform/money.ts';

/**
 * Stripe states amounts as integers in the currency's smallest unit, with its own exponent per
 * currency (docs.stripe.com/currencies): most have two decimals, these none or three. The
 * exponent is Stripe's, not Rampart's money table, because it is what Stripe reads the integer as.
 */
const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

export function stripeExponent(currency: string): number {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  return 2;
}

export class AmountNotRepresentableError extends Error {}

/**
 * The exact integer Stripe expects for `amount` in `currency`. An amount with more decimals than
 * the currency has, or past 2^53, is refused rather than rounded: a charge is never changed by
 * a cent on its way to the processor.
 */
export function toMinorUnits(amount: Money, currency: string): number {
  const minor = amount.times(new Money(10).pow(stripeExponent(currency)));
  if (!minor.isInteger() || minor.isNegative() || minor.gt(Number.MAX_SAFE_INTEGER)) {
    throw new AmountNotRepresentableError(
      `${amount.toFixed()} ${currency} is not a whole number of minor units`,
    );
  }
  return minor.toNumber();
}

/** The exact amount a Stripe integer stands for (negative integers, such as refunds in a balance, stay negative). */
export function fromMinorUnits(minor: number, currency: string): Money {
  return new Money(minor).div(new Money(10).pow(stripeExponent(currency)));
}
