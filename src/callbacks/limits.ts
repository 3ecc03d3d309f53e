/** Bounds of the callbacks module, in one place (TigerStyle: limits on everything). */
export const MAX_NOTIFY_URL_LENGTH = 2048;
/** A receiver gets this long to answer before the attempt counts as failed (docs/contract.md, Subscriptions and callbacks, sets no bound). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Deliveries in flight per process: hanging receivers tie up at most this many slots. */
export const DELIVERY_CONCURRENCY = 16;
/**
 * A worker holds a claimed delivery this long: the attempt's deadline plus room to record the
 * outcome, so a live worker keeps it, and a dead worker's deliveries go out again soon after.
 */
export const DELIVERY_LEASE_SECONDS = DELIVERY_TIMEOUT_MS / 1000 + 5;
/**
 * Lease and attempt deadline under RAMPART_JOB_LEASE_SECONDS: never longer than the defaults
 * above, and when the setting is shorter (fault tests, fast takeover) the deadline stays at two
 * thirds of the lease, so a live worker still records its outcome before anyone else may claim.
 */
export function deliveryTiming(jobLeaseSeconds: number): { leaseSeconds: number; timeoutMs: number } {
  const leaseSeconds = Math.min(DELIVERY_LEASE_SECONDS, jobLeaseSeconds);
  return { leaseSeconds, timeoutMs: Math.min(DELIVERY_TIMEOUT_MS, Math.floor((leaseSeconds * 2000) / 3)) };
}
/** Backoff between automatic retries: base × 2^(attempt−1), capped. */
export const RETRY_BASE_MS = 1000;
export const RETRY_CAP_MS = 3_600_000;
/** Stored error texts and response snippets are cut to this length. */
export const MAX_ERROR_LENGTH = 500;
/** Active subscriptions per partner (implicit ones from notifyUrl are not counted). */
export const MAX_SUBSCRIPTIONS_PER_PARTNER = 1000;
