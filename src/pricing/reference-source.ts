import { Money } from '../platform/money.ts';
import { DEFAULT_USD_PRICES } from './default-prices.ts';
import { pricingErrors } from './errors.ts';
import type { PriceSnapshot, RateSource } from './prices.ts';
import type { PricingSettings, PricingSettingsCache } from './settings.ts';

/**
 * The operator's reference table (PUT /operator/v1/rates), over the shipped defaults in sandbox,
 * as the process's PricingSettingsCache last read it (at most a second old, fresh after this
 * process's own PUT). The snapshot object is kept while the prices are unchanged, so what is
 * derived from it stays cached.
 */
export class ReferenceRateSource implements RateSource {
  private snapshot: PriceSnapshot | undefined;
  private builtFrom: PricingSettings['referencePrices'] | undefined;

  constructor(
    private readonly settings: PricingSettingsCache,
    /** Whether the shipped default prices (sandbox) lie under the operator's table. */
    readonly withDefaults: boolean,
  ) {}

  async current(): Promise<PriceSnapshot> {
    return this.snapshotFor(await this.settings.current());
  }

  /** The prices of one read of the settings (so a quote's prices and fees come from the same read). */
  snapshotFor(settings: PricingSettings): PriceSnapshot {
    if (this.snapshot && this.builtFrom === settings.referencePrices) return this.snapshot;
    const prices = new Map<string, Money>();
    if (this.withDefaults) {
      for (const [code, price] of Object.entries(DEFAULT_USD_PRICES)) prices.set(code, new Money(price));
    }
    for (const [code, price] of settings.referencePrices) prices.set(code, price);
    if (prices.size === 0) throw pricingErrors.stalePrices(undefined);
    const previous = this.snapshot;
    this.snapshot =
      previous && samePrices(previous.usdPrices, prices)
        ? previous
        : { usdPrices: prices, asOfMs: settings.readAtMs, source: 'reference' };
    this.builtFrom = settings.referencePrices;
    return this.snapshot;
  }

  close(): void {}
}

export function samePrices(a: ReadonlyMap<string, Money>, b: ReadonlyMap<string, Money>): boolean {
  if (a.size !== b.size) return false;
  for (const [code, price] of a) if (!b.get(code)?.eq(price)) return false;
  return true;
}
