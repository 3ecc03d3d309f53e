import { Decimal } from 'decimal.js';
import { currencyScale, type Money } from '../platform/money.ts';
import type { Quote } from '../pricing/index.ts';

/** The most decimals a hosted page shows of any amount: 18-decimal tokens read as 8. */
export const MAX_DISPLAY_DECIMALS = 8;

/** The decimals a page shows of this currency: its own scale, at most MAX_DISPLAY_DECIMALS. */
export function displayPrecision(currency: string): number {
  return Math.min(currencyScale(currency), MAX_DISPLAY_DECIMALS);
}

/**
 * An amount as a page shows it: at the currency's display precision, rounded down (a buyer is
 * never shown more than they get), cents always written out for currencies that have them
 * (3.2 USD reads "3.20"), further trailing zeros dropped (0.00500000 ETH reads "0.005"). The
 * exact amount is what is stored and charged; this is text only.
 */
export function displayAmount(amount: Money, currency: string): string {
  const precision = displayPrecision(currency);
  const shown = amount.toDecimalPlaces(precision, Decimal.ROUND_DOWN);
  const places = Math.max(Math.min(currencyScale(currency), 2), Math.min(shown.decimalPlaces(), precision));
  return shown.toFixed(places);
}

/** Whether the display text is the exact amount (false when digits beyond the precision were cut). */
export function displaysExactly(amount: Money, currency: string): boolean {
  return amount.decimalPlaces() <= displayPrecision(currency);
}

export function moneyText(amount: Money, currency: string): string {
  return `${displayAmount(amount, currency)} ${currency}`;
}

export interface FeeLine {
  key: 'purchase' | 'processingFee' | 'networkFee';
  /** In the source currency, exact. */
  amount: Money;
}

export interface FeeBreakdown {
  currency: string;
  lines: FeeLine[];
  total: Money;
  /** The network fee as the network takes it, in the destination currency. */
  networkFeeNative: { amount: Money; currency: string } | null;
}

/**
 * What the charge is made of, in the source currency: the purchase itself, the processing fee
 * and the network fee's value, which the quote derives so that the three add up to the charge
 * exactly (pricing/quote.ts). The network fee line is the remainder, so the sum holds by
 * construction; a negative remainder would mean the quote is inconsistent and is refused.
 */
export function feeBreakdown(quote: Quote): FeeBreakdown {
  const source = quote.sourceCurrency;
  const purchase = quote.sourceAmountWithoutFees;
  const processingFee = Object.hasOwn(quote.fees, source) ? quote.fees[source]! : purchase.minus(purchase);
  const networkFee = quote.sourceAmount.minus(purchase).minus(processingFee);
  if (networkFee.isNegative()) throw new Error('quote fees exceed its charge');
  const native = Object.hasOwn(quote.fees, quote.destCurrency) ? quote.fees[quote.destCurrency]! : null;
  return {
    currency: source,
    lines: [
      { key: 'purchase', amount: purchase },
      { key: 'processingFee', amount: processingFee },
      { key: 'networkFee', amount: networkFee },
    ],
    total: quote.sourceAmount,
    networkFeeNative: native ? { amount: native, currency: quote.destCurrency } : null,
  };
}

/**
 * A breakdown line as text. Card source currencies have at most 2 decimals, so every line is
 * exact at display precision and the lines shown add up to the total shown; a line that would
 * need more digits is written out in full rather than rounded, so the sum still holds.
 */
export function feeLineText(amount: Money, currency: string): string {
  if (displaysExactly(amount, currency)) return moneyText(amount, currency);
  return `${amount.toFixed()} ${currency}`;
}
