import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApplePayRequest,
  RampartClient,
  ServiceUnavailableException,
  ValidationException,
} from '../../sdk/src/index.js';
import { noCardProcessor } from '../../src/cards/no-processor.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { snapshot } from '../orders/support.ts';
import {
  ETH_ADDRESS,
  lockedReservation,
  postSigned,
  readOrder,
  startCardOrderApp,
  workerFor,
} from './support.ts';

/**
 * POST /v3/apple-pay/process/partner (docs/contract.md decision 45): Wyre's body, validated, paid
 * through the sandbox processor's Apple Pay path as a card order (walletType APPLE_PAY).
 */
let t: TestApp;
let partner: PartnerCredentials;
let client: RampartClient;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp());
  client = clientOf(t, partner);
});
afterAll(async () => t.close());

function clientOf(app: TestApp, credentials: PartnerCredentials) {
  return new RampartClient({
    baseUrl: app.baseUrl,
    auth: { type: 'signature', apiKey: credentials.apiKey, secretKey: credentials.secretKey },
  });
}

/** The body as Rainbow's wallet sends it: Apple's contacts and token passed on whole. */
function applePayBody(
  owner: PartnerCredentials,
  orderRequest: Partial<ApplePayRequest['payload']['orderRequest']> = {},
  paymentMethod: Record<string, unknown> = { displayName: 'Visa 1111', network: 'Visa', type: 'debit' },
): ApplePayRequest {
  return {
    partnerId: owner.accountId,
    payload: {
      orderRequest: {
        amount: '50',
        sourceCurrency: 'USD',
        destCurrency: 'ETH',
        dest: `ethereum:${ETH_ADDRESS}`,
        referrerAccountId: owner.accountId,
        referenceId: 'rainbow-1',
        ...orderRequest,
      },
      paymentObject: {
        billingContact: {
          addressLines: ['123 Test Ave'],
          administrativeArea: 'OR',
          country: 'United States',
          countryCode: 'US',
          familyName: 'Lovelace',
          givenName: 'Ada',
          locality: 'Portland',
          postalCode: '97209',
          subAdministrativeArea: '',
          subLocality: '',
        },
        shippingContact: { emailAddress: 'ada@example.com', phoneNumber: '(415) 555-0100' },
        token: {
          paymentData: {
            version: 'EC_v1',
            data: 'ZW5jcnlwdGVk',
            signature: 'c2ln',
            header: { ephemeralPublicKey: 'a' },
          },
          paymentMethod,
          transactionIdentifier: '5394A1B2C3D4E5F6',
        },
      },
    },
  };
}

describe('Apple Pay in sandbox', () => {
  it('pays a rate-locked reservation: answers {id}, a RUNNING_CHECKS APPLE_PAY order that completes', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    const answer = await client.cards.applePay(applePayBody(partner, { amount, reservationId: reservation }));
    expect(Object.keys(answer)).toEqual(['id']);
    expect(answer.id).toMatch(/^WO_[2-9A-HJ-NP-Z]{11}$/);
    const order = await readOrder(t, partner, answer.id);
    expect(order).toMatchObject({
      status: 'RUNNING_CHECKS',
      walletType: 'APPLE_PAY',
      reservationId: reservation,
      paymentMethodName: 'Visa ending 1111',
      email: 'ada@example.com',
      referenceId: 'rainbow-1',
      sourceAmount: Number(amount),
    });
    const { rows } = await t.database.db.query('SELECT phone, ip_address FROM wallet_orders WHERE id = $1', [
      answer.id,
    ]);
    expect(rows).toEqual([{ phone: '+14155550100', ip_address: '127.0.0.1' }]);
    await workerFor(t).drain();
    expect((await readOrder(t, partner, answer.id)).status).toBe('COMPLETE');
  });

  it('without a reservation (and without an Idempotency-Key) makes an unlocked one for amount', async () => {
    const response = await postSigned(
      t,
      partner,
      '/v3/apple-pay/process/partner',
      applePayBody(partner, { amount: '25' }),
    );
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const answer = JSON.parse(text) as { id: string };
    const order = await readOrder(t, partner, answer.id);
    expect(order).toMatchObject({ walletType: 'APPLE_PAY', sourceAmount: 25, sourceCurrency: 'USD' });
    const { rows } = await t.database.db.query(
      `SELECT r.request->>'paymentMethod' AS method, r.quote_locked FROM reservations r WHERE r.id = $1`,
      [order.reservationId],
    );
    expect(rows).toEqual([{ method: 'apple-pay', quote_locked: false }]);
  });

  it('reads the sandbox test card from displayName: the 3-D Secure card asks for 3-D Secure', async () => {
    const answer = await client.cards.applePay(
      applePayBody(partner, {}, { displayName: 'Visa 3220', network: 'Visa', type: 'debit' }),
    );
    const state = await client.cards.authorization(answer.id);
    expect(state.authorization3dsUrl).toContain(`/sandbox/3ds/${answer.id}/`);
  });

  it('refuses a credit card before anything is stored', async () => {
    const before = await snapshot(t);
    const error = await client.cards
      .applePay(applePayBody(partner, {}, { displayName: 'Visa 1111', type: 'credit' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationException);
    expect((error as ValidationException).errorCode).toBe('validation.unsupportedCardType.credit');
    expect(await snapshot(t)).toEqual(before);
  });

  it('refuses a declined card with the processor’s answer: no order, no hold', async () => {
    const { rows: ordersBefore } = await t.database.db.query('SELECT count(*)::int AS n FROM wallet_orders');
    const error = await client.cards
      .applePay(applePayBody(partner, {}, { displayName: 'Visa 0002', type: 'debit' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationException);
    expect((error as ValidationException).errorCode).toBe('validation.cardDeclined');
    const { rows: ordersAfter } = await t.database.db.query('SELECT count(*)::int AS n FROM wallet_orders');
    expect(ordersAfter).toEqual(ordersBefore);
  });

  it.each([
    [
      'partnerId of another account',
      (b: ApplePayRequest) => ({ ...b, partnerId: 'AC_2222222222A' }),
      'partnerId',
    ],
    [
      'no e-mail',
      (b: ApplePayRequest) => ({
        ...b,
        payload: { ...b.payload, paymentObject: { ...b.payload.paymentObject, shippingContact: {} } },
      }),
      'payload.paymentObject.shippingContact.emailAddress',
    ],
    [
      'no street',
      (b: ApplePayRequest) => ({
        ...b,
        payload: {
          ...b.payload,
          paymentObject: {
            ...b.payload.paymentObject,
            billingContact: { ...b.payload.paymentObject.billingContact, addressLines: [] },
          },
        },
      }),
      'payload.paymentObject.billingContact.addressLines',
    ],
    [
      'a phone that is no number',
      (b: ApplePayRequest) => ({
        ...b,
        payload: {
          ...b.payload,
          paymentObject: {
            ...b.payload.paymentObject,
            shippingContact: { emailAddress: 'a@b.co', phoneNumber: 'call me' },
          },
        },
      }),
      'payload.paymentObject.shippingContact.phoneNumber',
    ],
  ])(
    'refuses %s, naming the field, and stores nothing (no reservation either)',
    async (_name, change, field) => {
      const before = await snapshot(t);
      const error = await client.cards.applePay(change(applePayBody(partner))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationException);
      expect((error as ValidationException).problematicField).toBe(field);
      expect(await snapshot(t)).toEqual(before);
    },
  );
});

describe('Apple Pay without a processor that takes it', () => {
  it('answers 503 card.applePayNotConfigured and stores nothing', async () => {
    const production = await startTestApp({ ports: { cardProcessor: noCardProcessor } });
    try {
      const owner = await createPartner(production);
      const before = await snapshot(production);
      const error = await clientOf(production, owner)
        .cards.applePay(applePayBody(owner), { maxRetries: 0 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableException);
      expect((error as ServiceUnavailableException).errorCode).toBe('card.applePayNotConfigured');
      expect((error as ServiceUnavailableException).status).toBe(503);
      expect(await snapshot(production)).toEqual(before);
    } finally {
      await production.close();
    }
  });
});
