/**
 * Fixed one-minute windows counted in this process's memory, for the rate limits when no Redis
 * is configured. Synchronous on purpose: it runs on every request, and the library's store (a
 * promise per check) cost a measurable share of a short request's CPU. Windows that have ended
 * are swept once a minute, so memory stays bounded by the keys seen in the last window.
 */
export interface WindowCount {
  allowed: boolean;
  remaining: number;
  /** Milliseconds until the window ends (when the count starts again). */
  resetInMs: number;
}

interface Window {
  count: number;
  endsAt: number;
}

export class LocalWindowCounter {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), windowMs);
    this.sweeper.unref();
  }

  hit(key: string): WindowCount {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return {
      allowed: window.count <= this.max,
      remaining: Math.max(0, this.max - window.count),
      resetInMs: window.endsAt - now,
    };
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}
