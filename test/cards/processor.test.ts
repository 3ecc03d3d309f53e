import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { snapshot } from '../orders/support.ts';
import {
  CARD_TEST_ENV,
  CARDS,
  createOrder,
  lockedReservation,
  orderBody,
  roomyPartner,
  startCardOrderApp,
  testCard,
  US_ADDRESS,
} from '../wallet-orders/support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp({ env: { RAMPART_CARD_PROCESSOR_TIMEOUT_MS: '500' } }));
});
afterAll(async () => t.close());

describe('the sandbox processor refuses like a real one, and then nothing is stored', () => {
  it.each([
    ['a credit card', CARDS.credit, 400, 'validation.unsupportedCardType.credit'],
    ['a Mastercard credit card', '5555555555554444', 400, 'validation.unsupportedCardType.credit'],
    ['a prepaid card', CARDS.prepaid, 400, 'validation.unsupportedCardType.prepaid'],
    ['an AVS zip mismatch', CARDS.avs, 400, 'validation.avs.zipcode'],
    ['a "do not honor" decline', CARDS.decline, 400, 'validation.cardDeclined'],
    ['insufficient funds', CARDS.insufficient, 400, 'validation.insufficientFunds'],
    ['an Amex card', '378282246310005', 400, 'validation.invalidDebitCardNumber'],
    ['a slow processor past the timeout', CARDS.slow, 503, 'card.processorUnavailable'],
  ])('%s', async (_name, number, status, errorCode) => {
    const { reservation, amount } = await lockedReservation(t, partner);
    const before = await snapshot(t);
    const answer = await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { debitCard: testCard(number) }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(answer.body.errorCode).toBe(errorCode);
    expect(await snapshot(t)).toEqual(before);
    // The reservation was not used up by the refusal: a good card goes through on it.
    const retry = await createOrder(t, partner, orderBody(partner, reservation, amount));
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
  });

  it('AVS passes for the same card data on an approving card', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    const answer = await createOrder(
      t,
      partner,
      orderBody(partner, reservation, amount, { address: { ...US_ADDRESS, postalCode: '97209-1234' } }),
    );
    expect(answer.status).toBe(200);
  });
});

describe('a slow processor within the timeout', () => {
  it('answers and the order goes on', async () => {
    const patient = await startTestApp({ env: CARD_TEST_ENV });
    try {
      const p = await roomyPartner(patient);
      const { reservation, amount } = await lockedReservation(patient, p);
      const answer = await createOrder(
        patient,
        p,
        orderBody(p, reservation, amount, { debitCard: testCard(CARDS.slow) }),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.status).toBe('RUNNING_CHECKS');
    } finally {
      await patient.close();
    }
  });
});
