import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { ConnectorSignatureError } from '../../src/cards/connector.ts';
import { stripeConnector } from '../../src/cards/stripe/connector.ts';
import { fixture } from '../helpers/stripe-emulator/objects.ts';

// Webhook verification through the SDK's own constructEvent, with headers made by the SDK's own
// generateTestHeaderString: no network.

const secret = 'whsec_test_rampart_webhooks';
const connector = stripeConnector({ secretKey: 'sk_test_unused', webhookSecret: secret, timeoutMs: 1_000 });

function payload(): string {
  const pi = {
    ...fixture('payment_intent'),
    status: 'requires_capture',
    metadata: { order_id: 'WO_W1' },
    next_action: null,
  };
  return JSON.stringify({
    ...fixture('event'),
    id: 'evt_w1',
    type: 'payment_intent.amount_capturable_updated',
    data: { object: pi },
  });
}

describe('Stripe webhook verification', () => {
  it('accepts an event signed with the endpoint secret', () => {
    const body = payload();
    const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret });
    const event = connector.parseEvent(Buffer.from(body), { 'stripe-signature': header });
    expect(event).toMatchObject({
      eventId: 'evt_w1',
      kind: 'payment.updated',
      orderId: 'WO_W1',
      payment: { status: 'AUTHORIZED' },
    });
  });

  it('refuses an event signed with another secret', () => {
    const body = payload();
    const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_someone_else' });
    expect(() => connector.parseEvent(Buffer.from(body), { 'stripe-signature': header })).toThrow(
      ConnectorSignatureError,
    );
  });

  it('refuses a body changed after signing', () => {
    const body = payload();
    const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret });
    const tampered = body.replace('WO_W1', 'WO_W2');
    expect(() => connector.parseEvent(Buffer.from(tampered), { 'stripe-signature': header })).toThrow(
      ConnectorSignatureError,
    );
  });

  it('refuses a stale timestamp (older than the SDK tolerance of five minutes)', () => {
    const body = payload();
    const header = Stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret,
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expect(() => connector.parseEvent(Buffer.from(body), { 'stripe-signature': header })).toThrow(
      ConnectorSignatureError,
    );
  });

  it('refuses a missing or malformed signature header', () => {
    const body = Buffer.from(payload());
    expect(() => connector.parseEvent(body, {})).toThrow(ConnectorSignatureError);
    expect(() => connector.parseEvent(body, { 'stripe-signature': 'garbage' })).toThrow(
      ConnectorSignatureError,
    );
  });
});
