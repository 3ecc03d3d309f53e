import { invalidValue } from '../platform/errors.ts';
import { isKnownCurrency, type Money, parseAmount } from '../platform/money.ts';

const MAX_ENTRIES = 200;

/**
 * Reads a USD price table, shared by PUT /operator/v1/rates and the HTTP feed:
 * `{"BTC": {"USD": "60000"}, "EUR": {"USD": 1.08}}` (docs/contract.md, Operator API), or the flat `{"BTC": 60000}`.
 * Prices are exact decimals (numbers or strings) above zero. Currencies Rampart has no scale for
 * are refused by the operator call and skipped in a feed, which may carry more than we sell.
 */
export function parseUsdPrices(input: unknown, unknownCurrencies: 'reject' | 'skip'): Map<string, Money> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalidValue('body', 'Prices must be an object keyed by currency code.');
  }
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length === 0 || entries.length > MAX_ENTRIES) {
    throw invalidValue('body', `Send between 1 and ${MAX_ENTRIES} prices.`);
  }
  const prices = new Map<string, Money>();
  for (const [code, value] of entries) {
    if (!isKnownCurrency(code) || code === 'USD') {
      if (unknownCurrencies === 'skip') continue;
      throw invalidValue(code, `"${code}" is not a currency that can be priced in USD here.`);
    }
    const price = parseAmount(usdValue(code, value), code);
    if (price.lte(0)) throw invalidValue(code, `The price of ${code} must be greater than zero.`);
    prices.set(code, price);
  }
  if (prices.size === 0) throw invalidValue('body', 'No usable prices.');
  return prices;
}

function usdValue(code: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const quotes = Object.keys(value);
  if (quotes.length !== 1 || quotes[0] !== 'USD') {
    throw invalidValue(`${code}`, `Give the price of ${code} in USD only, as {"USD": price}.`);
  }
  return (value as { USD: unknown }).USD;
}
