/**
 * The one source of "now" for business rules (expiry, limits windows). In sandbox the operator
 * can move it forward (POST /operator/v1/sandbox/clock); the offset lives in PostgreSQL so every
 * process agrees, and each process refreshes its copy (see operator/service.ts).
 * Signature timestamps never use this clock: clients sign with real time.
 */
export class Clock {
  private offsetMs = 0;

  constructor(private readonly realNowMs: () => number = Date.now) {}

  nowMs(): number {
    return this.realNowMs() + this.offsetMs;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  realNow(): number {
    return this.realNowMs();
  }

  currentOffsetMs(): number {
    return this.offsetMs;
  }

  setOffsetMs(offsetMs: number): void {
    this.offsetMs = offsetMs;
  }
}

/** Resolves after `ms`; the timer does not keep the process alive (bounds on shutdown waits). */
export function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
}
