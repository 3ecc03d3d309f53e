import type { TestApp } from '../helpers/app.ts';
import { type HoldingProxy, startHoldingProxy } from '../helpers/holding-proxy.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { type StripeEmulator, startStripeEmulator } from '../helpers/stripe-emulator/index.ts';
import { startCardOrderApp } from './support.ts';

export const WEBHOOK_SECRET = 'whsec_rampart_lifecycle_tests';

export interface StripeFixture {
  t: TestApp;
  partner: PartnerCredentials;
  emulator: StripeEmulator;
  /** Between Rampart and the emulator: fails or withholds chosen calls. */
  proxy: HoldingProxy;
  close(): Promise<void>;
}

/**
 * A test app whose card processor is Stripe (RAMPART_CARD_PROCESSOR=stripe), its SDK pointed at
 * the Stripe emulator, whose events are posted to the app's events route.
 */
export async function startStripeApp(env: Record<string, string> = {}): Promise<StripeFixture> {
  const emulator = await startStripeEmulator({ webhookSecret: WEBHOOK_SECRET });
  const proxy = await startHoldingProxy(emulator.url);
  const { t, partner } = await startCardOrderApp({
    env: {
      RAMPART_CARD_PROCESSOR: 'stripe',
      RAMPART_STRIPE_SECRET_KEY: emulator.secretKey,
      RAMPART_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      RAMPART_STRIPE_API_URL: proxy.url,
      RAMPART_CARD_SMS_CODES: 'never',
      RAMPART_CARD_PROCESSOR_TIMEOUT_MS: '2000',
      ...env,
    },
  });
  emulator.webhooks.setUrl(`${t.baseUrl}/v3/card-processor/stripe/events`);
  return {
    t,
    partner,
    emulator,
    proxy,
    close: async () => {
      await t.close();
      await proxy.close();
      await emulator.close();
    },
  };
}

/** A card order for a fresh rate-locked reservation, paid with `number`. */
export { orderWithCard as placeCardOrder } from './support.ts';

export async function paymentRow(t: TestApp, orderId: string) {
  const { rows } = await t.database.db.query('SELECT * FROM card_payments WHERE order_id = $1', [orderId]);
  return rows[0] as Record<string, unknown> | undefined;
}

export async function orderIdOfReservation(t: TestApp, reservation: string): Promise<string> {
  const { rows } = await t.database.db.query('SELECT id FROM wallet_orders WHERE reservation_id = $1', [
    reservation,
  ]);
  return rows[0].id as string;
}

/** The PaymentIntents the emulator holds for an order (by Rampart's metadata). */
export function intentsOf(emulator: StripeEmulator, orderId: string) {
  return [...emulator.state.intents.values()].filter((intent) => intent.metadata?.order_id === orderId);
}

/** Makes the status poll and operation jobs due now (they back off in real time). */
export async function jobsDueNow(t: TestApp) {
  await t.database.db.query(
    `UPDATE jobs SET run_at = now() WHERE state = 'pending' AND kind IN ('cards.authorize', 'cards.operation')`,
  );
}
