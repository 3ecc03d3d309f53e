import type { Money } from '../platform/money.ts';

/** USD prices of every priced currency at one moment, from one source. USD itself is always 1. */
export interface PriceSnapshot {
  /** USD per one unit of the currency. */
  usdPrices: ReadonlyMap<string, Money>;
  /** When the source last obtained these prices (real time, epoch ms). */
  asOfMs: number;
  source: 'reference' | 'feed';
}

/**
 * Where prices come from. `current()` answers the prices a quote may use right now, or throws
 * a transient 503 (pricingErrors.stalePrices) rather than hand out prices it cannot vouch for.
 */
export interface RateSource {
  current(): Promise<PriceSnapshot>;
  /** Called when the app closes (stops a feed's polling). */
  close(): void;
}
