/**
 * What a partner is told about a callback attempt. Only these four outcomes, never the error
 * text: a sandbox partner may point callbacks at the server's own loopback, and texts such as
 * `ECONNREFUSED`, `socket hang up` or `HTTP 401` from one port after another would map the
 * machine's services. The operator API and the logs keep the details.
 */
export type DeliveryOutcome = 'delivered' | 'refusedByReceiver' | 'unreachable' | 'timedOut';

/**
 * A subscription's `failure` after an attempt: null once delivered, `refusedByReceiver (HTTP n)`
 * when the receiver answered anything but 200 (redirects included), else `unreachable` (refused
 * address, DNS, connection, TLS) or `timedOut`.
 */
export function partnerFailure(outcome: DeliveryOutcome, statusCode: number | null): string | null {
  if (outcome === 'delivered') return null;
  if (outcome === 'refusedByReceiver') return `refusedByReceiver (HTTP ${statusCode})`;
  return outcome;
}
