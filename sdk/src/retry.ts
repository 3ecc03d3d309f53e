/**
 * When and how long to wait before sending a request again. Only failures that say nothing
 * happened, or requests that are safe to repeat, are retried:
 *
 * - 429 RateLimitException: always (the server refused before doing anything), after
 *   `Retry-After` when given.
 * - A transient envelope (`transient: true`) or any 5xx but 501 (a feature the server does not
 *   offer, which no retry changes), and network failures or timeouts: only for idempotent
 *   requests (GET, DELETE, POSTs without side effects, and POSTs carrying an
 *   `Idempotency-Key`, which the server answers at most once).
 *
 * Delays are "full jitter" exponential backoff (a random wait up to base × 2^attempt, capped),
 * so many clients failing together do not come back together.
 */

export interface RetryOptions {
  /** Retries after the first attempt (0 disables retrying). Default 2. */
  maxRetries: number;
  /** First backoff ceiling in ms. Default 250. */
  baseDelayMs: number;
  /** Largest backoff ceiling in ms. Default 8000. */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is thrown. Default 60000. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: Readonly<RetryOptions> = {
  maxRetries: 2,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
};

export type AttemptOutcome =
  | { kind: 'response'; status: number; transient: boolean; retryAfterMs: number | undefined }
  | { kind: 'network' }
  | { kind: 'timeout' };

export function isRetryable(outcome: AttemptOutcome, idempotent: boolean): boolean {
  if (outcome.kind !== 'response') return idempotent;
  if (outcome.status === 429) return true;
  return idempotent && (outcome.transient || (outcome.status >= 500 && outcome.status !== 501));
}

/**
 * The wait before retry number `retry` (0-based), or undefined when the server asks for longer
 * than the caller accepts.
 */
export function retryDelayMs(
  outcome: AttemptOutcome,
  retry: number,
  options: RetryOptions,
  random: () => number = Math.random,
): number | undefined {
  if (outcome.kind === 'response' && outcome.retryAfterMs !== undefined) {
    return outcome.retryAfterMs <= options.maxRetryAfterMs ? outcome.retryAfterMs : undefined;
  }
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** `Retry-After` as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(header: string | null, nowMs: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
