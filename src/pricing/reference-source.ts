import type { Db } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import { DEFAULT_USD_PRICES } from './default-prices.ts';
import { pricingErrors } from './errors.ts';
import type { PriceSnapshot, RateSource } from './prices.ts';
import { readReferencePrices } from './store.ts';

/** How long a process serves its copy of the table before reading it again (other nodes' PUTs). */
export const REFERENCE_REFRESH_MS = 1000;

/**
 * The operator's reference table (PUT /operator/v1/rates), over the shipped defaults in sandbox.
 * Read at most once a second per process, and at once after this process's own PUT; the snapshot
 * object is kept while the prices are unchanged, so what is derived from it stays cached.
 */
export class ReferenceRateSource implements RateSource {
  private snapshot: PriceSnapshot | undefined;
  private loadedAtMs = 0;
  private loading: Promise<PriceSnapshot> | undefined;
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly withDefaults: boolean,
    private readonly realNowMs: () => number = Date.now,
  ) {}

  async current(): Promise<PriceSnapshot> {
    const snapshot = this.snapshot;
    if (snapshot && this.realNowMs() - this.loadedAtMs < REFERENCE_REFRESH_MS) return snapshot;
    if (!this.loading) {
      const loading = this.load(this.generation).finally(() => {
        if (this.loading === loading) this.loading = undefined;
      });
      this.loading = loading;
    }
    return this.loading;
  }

  /** Forget the copy: the next quote reads the table (after this process changed it). */
  invalidate(): void {
    this.generation += 1;
    this.loading = undefined;
    this.loadedAtMs = 0;
  }

  close(): void {}

  private async load(generation: number): Promise<PriceSnapshot> {
    const startedMs = this.realNowMs();
    const prices = new Map<string, Money>();
    if (this.withDefaults) {
      for (const [code, price] of Object.entries(DEFAULT_USD_PRICES)) prices.set(code, new Money(price));
    }
    for (const row of await readReferencePrices(this.db)) prices.set(row.currency, new Money(row.usd_price));
    if (prices.size === 0) throw pricingErrors.stalePrices(undefined);
    const previous = this.snapshot;
    const snapshot =
      previous && samePrices(previous.usdPrices, prices)
        ? previous
        : { usdPrices: prices, asOfMs: startedMs, source: 'reference' as const };
    // A read that started before an invalidate() may predate the change: answer it, keep nothing.
    if (generation === this.generation) {
      this.snapshot = snapshot;
      this.loadedAtMs = startedMs;
    }
    return snapshot;
  }
}

export function samePrices(a: ReadonlyMap<string, Money>, b: ReadonlyMap<string, Money>): boolean {
  if (a.size !== b.size) return false;
  for (const [code, price] of a) if (!b.get(code)?.eq(price)) return false;
  return true;
}
