import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { jobsDueNow, paymentRow, placeCardOrder } from './stripe-support.ts';
import { readOrder, startCardOrderApp, workerFor } from './support.ts';

/**
 * The card order lifecycle against Stripe's real test mode, when STRIPE_TEST_SECRET_KEY is set
 * (reported as skipped otherwise). The account needs raw card data access in test mode
 * (docs/going-to-production.md, "Card processing"). No events reach a test machine, so the
 * request and the status poll resolve the orders; the webhook secret is a placeholder.
 */
const secretKey = process.env.STRIPE_TEST_SECRET_KEY;

describe.skipIf(!secretKey)('Stripe test mode, live (needs STRIPE_TEST_SECRET_KEY)', () => {
  let t: TestApp;
  let partner: PartnerCredentials;
  let stripe: Stripe;

  beforeAll(async () => {
    ({ t, partner } = await startCardOrderApp({
      env: {
        RAMPART_CARD_PROCESSOR: 'stripe',
        RAMPART_STRIPE_SECRET_KEY: secretKey!,
        RAMPART_STRIPE_WEBHOOK_SECRET: 'whsec_live_suite_receives_no_events',
        RAMPART_CARD_SMS_CODES: 'never',
      },
    }));
    stripe = new Stripe(secretKey!);
  });
  afterAll(async () => t?.close());

  it('authorizes a Visa debit card, captures it once the order is processed, for the exact amount', async () => {
    const created = await placeCardOrder(t, partner, '4000056655665556');
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const orderId = String(created.body.id);
    const payment = await paymentRow(t, orderId);
    expect(payment).toMatchObject({ state: 'AUTHORIZED' });
    await workerFor(t).drain();
    await jobsDueNow(t);
    await workerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('COMPLETE');
    const intent = await stripe.paymentIntents.retrieve(String(payment!.reference));
    expect(intent.status).toBe('succeeded');
    expect(intent.amount_received).toBe(Math.round(Number(created.amount) * 100));
    expect(intent.metadata.order_id).toBe(orderId);
  });

  it('answers a decline with Wyre’s error', async () => {
    const created = await placeCardOrder(t, partner, '4000000000000002');
    expect(created.status).toBe(400);
    expect(created.body.errorCode).toBe('validation.cardDeclined');
  });
});
