import { Decimal } from 'decimal.js';
import { invalidValue } from './errors.ts';

/**
 * Exact decimal money. Amounts never pass through a binary float: requests are read from
 * numbers' source text or strings, SQL uses NUMERIC, and responses are written by json.ts.
 */

// 40 significant digits covers 18-decimal tokens with 22 integer digits; rounding is always explicit.
export const Money = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -40,
  toExpPos: 40,
});
export type Money = Decimal;

/** Smallest unit per currency: fiat cents, satoshis, wei, USDC's 6 decimals. */
const SCALE_BY_CURRENCY: Record<string, number> = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  CAD: 2,
  AUD: 2,
  NOK: 2,
  SEK: 2,
  DKK: 2,
  CHF: 2,
  PLN: 2,
  CZK: 2,
  MXN: 2,
  NZD: 2,
  HKD: 2,
  BRL: 2,
  JPY: 0,
  BTC: 8,
  ETH: 18,
  USDC: 6,
  DAI: 18,
  MATIC: 18,
  AVAX: 18,
};

export function isKnownCurrency(code: string): boolean {
  return Object.hasOwn(SCALE_BY_CURRENCY, code);
}

export function currencyScale(code: string): number {
  // hasOwn: a code such as "constructor" must not find Object.prototype's members.
  const scale = Object.hasOwn(SCALE_BY_CURRENCY, code) ? SCALE_BY_CURRENCY[code] : undefined;
  if (scale === undefined)
    throw invalidValue('currency', `Unsupported currency: "${code}"`, 'validation.unsupportedCurrency');
  return scale;
}

const DECIMAL_TEXT = /^-?(0|[1-9]\d{0,29})(\.\d{1,30})?$/;

/**
 * Reads an amount given as a JSON number or a decimal string. Exponents, NaN, Infinity,
 * hex and padded text are refused so that what the partner sent is exactly what we use.
 */
export function parseAmount(input: unknown, field: string): Money {
  const text = typeof input === 'number' ? numberSourceText(input) : input;
  if (typeof text !== 'string' || !DECIMAL_TEXT.test(text)) {
    throw invalidValue(field, `Field ${field} must be a decimal number, such as 12.34.`);
  }
  return new Money(text);
}

/** JSON numbers arrive already parsed; their shortest round-trip text is the literal the client wrote. */
function numberSourceText(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  return /e/i.test(text) ? new Money(text).toFixed() : text;
}

export function parsePositiveAmount(input: unknown, field: string, currency: string): Money {
  const amount = parseAmount(input, field);
  if (amount.lte(0)) throw invalidValue(field, `Field ${field} must be greater than zero.`);
  if (amount.decimalPlaces() > currencyScale(currency)) {
    throw invalidValue(
      field,
      `Field ${field} has more decimals than ${currency} allows (${currencyScale(currency)}).`,
    );
  }
  return amount;
}

/** Fees round up: the house never gives away a fraction of a unit. */
export function roundFee(amount: Money, currency: string): Money {
  return amount.toDecimalPlaces(currencyScale(currency), Decimal.ROUND_UP);
}

/** Amounts paid out round down: we never pay out a fraction we did not receive. */
export function roundPayout(amount: Money, currency: string): Money {
  return amount.toDecimalPlaces(currencyScale(currency), Decimal.ROUND_DOWN);
}

export function isMoney(value: unknown): value is Money {
  return Decimal.isDecimal(value);
}
