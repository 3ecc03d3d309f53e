import type { Db } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import { DEFAULT_FEE_SCHEDULE, type FeeSchedule, type FeeScheduleJson, parseFeeSchedule } from './fees.ts';
import { readPricingSettings } from './store.ts';

/** How long a process serves its copy before reading it again (changes made by other processes). */
export const SETTINGS_REFRESH_MS = 1000;

/** What the operator sets, as one process last read it. */
export interface PricingSettings {
  /** migrations/012: bumped by every write to the prices or the fee schedule. */
  generation: number;
  /** The operator's schedule, else the default in code. */
  schedule: FeeSchedule;
  /** The operator's reference rows, USD per unit (the sandbox defaults are not included). */
  referencePrices: ReadonlyMap<string, Money>;
  /** When the read that produced this copy started (real time, epoch ms). */
  readAtMs: number;
}

/**
 * One process's copy of the fee schedule and reference prices: read in one statement at most once
 * a second, by one read however many requests ask meanwhile, and at once after this process's own
 * change (invalidate). While the generation is unchanged the same objects are kept, so nothing is
 * parsed again and what is derived from them (rates, rendered JSON) stays cached.
 * Other processes' changes are seen within a second; a reservation checks the generation it was
 * quoted at as it is stored (orders/store.ts), so no locked quote is made on a changed price.
 */
export class PricingSettingsCache {
  private settings: PricingSettings | undefined;
  private loading: Promise<PricingSettings> | undefined;
  /** Counts invalidations: a read that started before one must not be kept. */
  private epoch = 0;

  constructor(
    private readonly db: Db,
    private readonly realNowMs: () => number,
  ) {}

  current(): Promise<PricingSettings> {
    const settings = this.settings;
    if (settings && this.realNowMs() - settings.readAtMs < SETTINGS_REFRESH_MS) {
      return Promise.resolve(settings);
    }
    if (!this.loading) {
      const loading = this.load(this.epoch).finally(() => {
        if (this.loading === loading) this.loading = undefined;
      });
      this.loading = loading;
    }
    return this.loading;
  }

  /** Forget the copy: the next request reads the tables again. */
  invalidate(): void {
    this.epoch += 1;
    this.loading = undefined;
    this.settings = undefined;
  }

  private async load(epoch: number): Promise<PricingSettings> {
    const readAtMs = this.realNowMs();
    const row = await readPricingSettings(this.db);
    const previous = this.settings;
    const settings =
      previous && previous.generation === row.generation
        ? { ...previous, readAtMs }
        : {
            generation: row.generation,
            schedule: parseFeeSchedule((row.schedule as FeeScheduleJson | null) ?? DEFAULT_FEE_SCHEDULE),
            referencePrices: new Map(
              Object.entries(row.prices ?? {}).map(([code, price]) => [code, new Money(price)]),
            ),
            readAtMs,
          };
    // A read that started before an invalidate() may predate the change: answer it, keep nothing.
    if (epoch === this.epoch) this.settings = settings;
    return settings;
  }
}
