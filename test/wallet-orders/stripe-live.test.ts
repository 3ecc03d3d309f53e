import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { STRIPE_RAW_CARDS_ENABLED, STRIPE_TEST_SECRET_KEY, stripeLiveTitle } from '../helpers/stripe-live.ts';
import { jobsDueNow, paymentRow, placeCardOrder } from './stripe-support.ts';
import { readOrder, startCardOrderApp, workerFor } from './support.ts';

/**
 * The card order lifecycle against Stripe's real test mode, when STRIPE_TEST_SECRET_KEY is set and
 * the account has raw card data access (STRIPE_TEST_RAW_CARD_DATA=1); reported as skipped
 * otherwise. No events reach a test machine, so the
 * request and the status poll resolve the orders; the webhook secret is a placeholder.
 */
const secretKey = STRIPE_TEST_SECRET_KEY;

// Rampart tokenizes the card number itself, which Stripe takes only with raw card data access.
describe.skipIf(!STRIPE_RAW_CARDS_ENABLED)(
  stripeLiveTitle('the card order lifecycle, with STRIPE_TEST_RAW_CARD_DATA=1,'),
  () => {
    let t: TestApp;
    let partner: PartnerCredentials;
    let stripe: Stripe;

    beforeAll(async () => {
      ({ t, partner } = await startCardOrderApp({
        env: {
          RAMPART_CARD_PROCESSOR: 'stripe',
          RAMPART_STRIPE_SECRET_KEY: secretKey,
          RAMPART_STRIPE_WEBHOOK_SECRET: 'whsec_live_suite_receives_no_events',
          RAMPART_CARD_SMS_CODES: 'never',
        },
      }));
      stripe = new Stripe(secretKey);
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
  },
);
