import Stripe from 'stripe';

export interface StripeClientOptions {
  secretKey: string;
  /** Another API host, `http://127.0.0.1:PORT` (tests' emulator); Stripe's own when absent. */
  apiUrl?: string | undefined;
  timeoutMs: number;
}

/**
 * The official SDK, configured. `maxNetworkRetries: 0`: Rampart's own jobs retry with the same
 * idempotency key, after recording that the call is pending, so a retry the SDK made on its own
 * would be invisible to the record.
 */
export function stripeClient(options: StripeClientOptions): Stripe {
  const config: ConstructorParameters<typeof Stripe>[1] = {
    maxNetworkRetries: 0,
    timeout: options.timeoutMs,
    telemetry: false,
  };
  if (options.apiUrl !== undefined) {
    const url = new URL(options.apiUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`Stripe API URL must be http or https: ${options.apiUrl}`);
    }
    config.host = url.hostname;
    config.port = url.port || (url.protocol === 'https:' ? 443 : 80);
    config.protocol = url.protocol === 'https:' ? 'https' : 'http';
  }
  return new Stripe(options.secretKey, config);
}
