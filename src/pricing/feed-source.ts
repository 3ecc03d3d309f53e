import { parseJsonExact } from '../platform/json-parse.ts';
import { pricingErrors } from './errors.ts';
import { parseUsdPrices } from './price-input.ts';
import type { PriceSnapshot, RateSource } from './prices.ts';

export interface FeedSettings {
  url: string;
  intervalMs: number;
  timeoutMs: number;
  staleAfterMs: number;
}

const MAX_FEED_BYTES = 1_048_576;

/**
 * Polls a JSON price endpoint (the shape parseUsdPrices reads) every `intervalMs`, each request
 * bounded by `timeoutMs`. A failed or malformed poll keeps the last good prices; once those are
 * older than `staleAfterMs` (real time: feed freshness is about the world, not the sandbox
 * clock) every quote is refused with a transient 503 instead of priced wrong.
 * Each process polls for itself; a missed poll loses nothing (the next one replaces it).
 */
export class FeedRateSource implements RateSource {
  private snapshot: PriceSnapshot | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: AbortController | undefined;
  private closed = false;
  /** The last poll's failure, for logs and tests. */
  lastError: string | undefined;

  constructor(
    private readonly settings: FeedSettings,
    private readonly realNowMs: () => number = Date.now,
  ) {}

  start(): void {
    void this.pollAndReschedule();
  }

  async current(): Promise<PriceSnapshot> {
    const snapshot = this.snapshot;
    if (!snapshot) throw pricingErrors.stalePrices(undefined);
    const ageMs = this.realNowMs() - snapshot.asOfMs;
    if (ageMs > this.settings.staleAfterMs) throw pricingErrors.stalePrices(ageMs);
    return snapshot;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.inFlight?.abort();
  }

  /** One poll; resolves when it has succeeded or failed (exported for tests through the class). */
  async poll(): Promise<void> {
    const controller = new AbortController();
    this.inFlight = controller;
    const timeout = setTimeout(() => controller.abort(), this.settings.timeoutMs);
    try {
      const response = await fetch(this.settings.url, {
        signal: controller.signal,
        headers: { accept: 'application/json' },
      });
      if (response.status !== 200) throw new Error(`feed answered ${response.status}`);
      const text = await response.text();
      if (text.length > MAX_FEED_BYTES) throw new Error('feed answer too large');
      const prices = parseUsdPrices(parseJsonExact(text), 'skip');
      this.snapshot = { usdPrices: prices, asOfMs: this.realNowMs(), source: 'feed' };
      this.lastError = undefined;
    } catch (error) {
      this.lastError = controller.signal.aborted ? 'timeout' : (error as Error).message;
    } finally {
      clearTimeout(timeout);
      if (this.inFlight === controller) this.inFlight = undefined;
    }
  }

  private async pollAndReschedule(): Promise<void> {
    await this.poll();
    if (this.closed) return;
    this.timer = setTimeout(() => void this.pollAndReschedule(), this.settings.intervalMs);
    this.timer.unref();
  }
}
