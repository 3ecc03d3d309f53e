import type { StripeConnectorOptions } from '../../src/cards/stripe/connector.ts';

/**
 * Stripe's real test mode, for live contract suites: on when `STRIPE_TEST_SECRET_KEY` holds a
 * test-mode key (`sk_test_…` or a restricted `rk_test_…`), else the suites report themselves
 * skipped with `STRIPE_LIVE_TITLE` saying why. A live-mode key is refused so a test never charges
 * a real card.
 */
export const STRIPE_TEST_SECRET_KEY = process.env.STRIPE_TEST_SECRET_KEY ?? '';

if (STRIPE_TEST_SECRET_KEY !== '' && !/^(sk|rk)_test_/.test(STRIPE_TEST_SECRET_KEY)) {
  throw new Error('STRIPE_TEST_SECRET_KEY must be a test-mode key (sk_test_… or rk_test_…)');
}

export const STRIPE_LIVE_ENABLED = STRIPE_TEST_SECRET_KEY !== '';

/** Raw card numbers reach Stripe's API only where the account has raw card data access, in test mode too. */
export const STRIPE_RAW_CARDS_ENABLED = STRIPE_LIVE_ENABLED && process.env.STRIPE_TEST_RAW_CARD_DATA === '1';

export function stripeLiveTitle(what: string): string {
  return STRIPE_LIVE_ENABLED
    ? `${what} (Stripe test mode, live)`
    : `${what} (skipped: STRIPE_TEST_SECRET_KEY is not set)`;
}

export function stripeLiveOptions(): StripeConnectorOptions {
  return {
    secretKey: STRIPE_TEST_SECRET_KEY,
    // Events are not received in the live suites (Stripe cannot reach a test runner); parseEvent
    // is covered by the emulator and the SDK's own test headers.
    webhookSecret: process.env.STRIPE_TEST_WEBHOOK_SECRET ?? 'whsec_unused',
    timeoutMs: 30_000,
  };
}
