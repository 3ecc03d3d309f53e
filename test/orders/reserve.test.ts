import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Money } from '../../src/platform/money.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { createSubaccount } from '../identity/support.ts';
import {
  BTC_TESTNET,
  CHECKOUT_LINK_PARAMS,
  ETH_ADDRESS,
  lockedBody,
  postSigned,
  readReservation,
  reserve,
  snapshot,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
});
afterAll(async () => t?.close());

const RESERVATION_ID = /^[2-9A-HJ-NP-Z]{20}$/;

async function readBack(id: string, who = partner) {
  const response = await readReservation(t, who, id);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as Record<string, unknown> & { quote: Record<string, unknown> | null };
}

describe('POST /v3/orders/reserve, rate-locked', () => {
  it('answers {url, reservation} with the hosted checkout link and campaign values', async () => {
    const body = lockedBody(partner, {
      redirectUrl: 'https://partner.example/done?x=1',
      failureRedirectUrl: 'https://partner.example/failed',
    });
    const answer = await reserve(t, partner, body);
    expect(Object.keys(answer).sort()).toEqual(['reservation', 'url']);
    expect(answer.reservation).toMatch(RESERVATION_ID);
    const url = new URL(answer.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${t.ctx.config.checkoutUrl}/purchase`);
    expect([...url.searchParams.keys()]).toEqual(CHECKOUT_LINK_PARAMS);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      accountId: partner.accountId,
      reservation: answer.reservation,
      redirectUrl: 'https://partner.example/done?x=1',
      failureRedirectUrl: 'https://partner.example/failed',
      utm_campaign: partner.accountId,
      utm_medium: 'widget',
      utm_source: 'checkout',
    });
  });

  it('reads back every request field, the lock flags and the locked quote (spec §2.3)', async () => {
    const { reservation } = await reserve(
      t,
      partner,
      lockedBody(partner, { lockFields: ['sourceAmount', 'dest'], firstName: 'Ada', street1: '1 Main St' }),
    );
    const read = await readBack(reservation);
    expect(read).toMatchObject({
      reservation,
      amount: null,
      sourceAmount: 100,
      destAmount: null,
      amountIncludeFees: false,
      paymentMethod: 'debit-card',
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      dest: `ethereum:${ETH_ADDRESS}`,
      referrerAccountId: partner.accountId,
      country: 'US',
      street1: '1 Main St',
      city: null,
      state: null,
      postalCode: null,
      firstName: 'Ada',
      lastName: '',
      phone: '',
      email: '',
      redirectUrl: null,
      failureRedirectUrl: null,
      referenceId: null,
      hideTrackBtn: null,
      lockFields: ['sourceAmount', 'dest'],
      quoteLockRequest: true,
    });
    expect(read.expiresAt).toBe((read.createdAt as number) + 15 * 60 * 1000);
    expect(read.quote).toMatchObject({
      sourceCurrency: 'USD',
      sourceAmount: 104.4,
      sourceAmountWithoutFees: 100,
      destCurrency: 'ETH',
      destAmount: 0.033333333333333333,
      fees: { USD: 3.2, ETH: 0.0004 },
    });
    expect(Object.keys(read.quote!).sort()).toEqual([
      'destAmount',
      'destCurrency',
      'equivalencies',
      'exchangeRate',
      'fees',
      'sourceAmount',
      'sourceAmountWithoutFees',
      'sourceCurrency',
    ]);
  });

  it('writes amounts as exact JSON numbers, never through a float', async () => {
    const { reservation } = await reserve(t, partner, lockedBody(partner));
    const response = await readReservation(t, partner, reservation);
    const text = await response.text();
    expect(text).toContain('"destAmount":0.033333333333333333,');
    expect(text).toContain('"exchangeRate":0.000333333333333333333,');
  });

  it('stores the rate derivation with the quote, and never recomputes the locked quote', async () => {
    const { reservation } = await reserve(
      t,
      partner,
      lockedBody(partner, { sourceCurrency: 'EUR', country: 'FR' }),
    );
    const before = await readBack(reservation);
    const { rows } = await t.database.db.query('SELECT rate_derivation FROM reservations WHERE id = $1', [
      reservation,
    ]);
    expect(rows[0].rate_derivation).toMatchObject({
      via: 'USD',
      sourceUsdPrice: '1.08',
      destUsdPrice: '3000',
    });
    const put = await fetch(`${t.baseUrl}/operator/v1/rates`, {
      method: 'PUT',
      headers: operatorHeaders(),
      body: JSON.stringify({ ETH: { USD: '1500' } }),
    });
    expect(put.status).toBe(200);
    try {
      const after = await readBack(reservation);
      expect(after.quote).toEqual(before.quote);
      const fresh = await readBack((await reserve(t, partner, lockedBody(partner))).reservation);
      expect(fresh.quote?.exchangeRate).not.toEqual(before.quote?.exchangeRate);
    } finally {
      await fetch(`${t.baseUrl}/operator/v1/rates`, {
        method: 'PUT',
        headers: operatorHeaders(),
        body: JSON.stringify({ ETH: { USD: '3000' } }),
      });
    }
  });

  it('accepts destAmount, bitcoin testnet addresses and a Norwegian currency with a Norwegian address', async () => {
    const { reservation } = await reserve(
      t,
      partner,
      lockedBody(partner, {
        sourceAmount: undefined,
        destAmount: 0.001,
        destCurrency: 'BTC',
        dest: `bitcoin:${BTC_TESTNET}`,
        sourceCurrency: 'NOK',
        country: 'NO',
        amountIncludeFees: true,
      }),
    );
    const read = await readBack(reservation);
    expect(read.quote).toMatchObject({ sourceCurrency: 'NOK', destCurrency: 'BTC' });
    expect(new Money(String(read.quote!.destAmount)).lt('0.001')).toBe(true);
  });

  it('accepts the caller’s own account and a sub-account as dest and referrer', async () => {
    const sub = await createSubaccount(t, partner);
    const { url } = await reserve(
      t,
      partner,
      lockedBody(partner, { dest: `account:${sub.id}`, referrerAccountId: sub.id }),
    );
    expect(new URL(url).searchParams.get('accountId')).toBe(sub.id);
    await reserve(t, partner, lockedBody(partner, { dest: `account:${partner.accountId}` }));
  });

  it('replays the stored answer for the same Idempotency-Key and stores one reservation', async () => {
    const body = JSON.stringify(lockedBody(partner, { referenceId: 'idem-1' }));
    const headers = { 'idempotency-key': 'reserve-idem-1' };
    const first = await postSigned(t, partner, '/v3/orders/reserve', body, headers);
    const second = await postSigned(t, partner, '/v3/orders/reserve', body, headers);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    const { rows } = await t.database.db.query(
      `SELECT count(*)::int AS n FROM reservations WHERE request->>'referenceId' = 'idem-1'`,
    );
    expect(rows[0].n).toBe(1);
  });
});

describe('concurrent reservations (stored together, one statement per group)', () => {
  it('each of 40 at once is stored once, under its own id, with its own request', async () => {
    const amounts = Array.from({ length: 40 }, (_, i) => String(100 + i));
    const responses = await Promise.all(
      amounts.map((sourceAmount) =>
        postSigned(t, partner, '/v3/orders/reserve', lockedBody(partner, { sourceAmount })),
      ),
    );
    const ids: string[] = [];
    for (const response of responses) {
      const text = await response.text();
      expect(response.status, text).toBe(200);
      ids.push((JSON.parse(text) as { reservation: string }).reservation);
    }
    expect(new Set(ids).size).toBe(40);
    const read = await Promise.all(ids.map((id) => readBack(id)));
    expect(read.map((reservation) => reservation.sourceAmount)).toEqual(amounts.map(Number));
  });
});

describe('POST /v3/orders/reserve without a rate lock (amount)', () => {
  it('stores the request, with quoteLockRequest false and no quote; unset fields "" or null', async () => {
    const { reservation } = await reserve(t, partner, {
      amount: '25.50',
      sourceCurrency: 'USD',
      destCurrency: 'BTC',
    });
    const read = await readBack(reservation);
    expect(read).toMatchObject({
      amount: 25.5,
      sourceAmount: null,
      destAmount: null,
      amountIncludeFees: null,
      paymentMethod: null,
      dest: null,
      referrerAccountId: null,
      country: null,
      firstName: '',
      lastName: '',
      phone: '',
      email: '',
      lockFields: [],
      quoteLockRequest: false,
      quote: null,
    });
  });
});

describe('GET /v3/orders/reservation/{id}', () => {
  it('is 404 for another partner’s reservation and for unknown ids, alike', async () => {
    const { reservation } = await reserve(t, partner, lockedBody(partner));
    const theirs = await expectEnvelopeResponse(
      await readReservation(t, other, reservation),
      404,
      'NotFoundException',
    );
    const unknown = await expectEnvelopeResponse(
      await readReservation(t, other, 'ZZZZZZZZZZZZZZZZZZZZ'),
      404,
      'NotFoundException',
    );
    expect({ ...theirs, exceptionId: '' }).toEqual({ ...unknown, exceptionId: '' });
  });

  it('needs credentials', async () => {
    const response = await fetch(`${t.baseUrl}/v3/orders/reservation/ZZZZZZZZZZZZZZZZZZZZ`);
    await expectEnvelopeResponse(response, 401, 'AccessDeniedException');
  });
});

describe('POST /v3/orders/quote/partner', () => {
  it('answers the same quote a reservation locks, without storing anything', async () => {
    const before = await snapshot(t);
    const response = await postSigned(t, partner, '/v3/orders/quote/partner', {
      amount: 100,
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      dest: `ethereum:${ETH_ADDRESS}`,
      accountId: partner.accountId,
      country: 'US',
      walletType: 'DEBIT_CARD',
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      sourceAmount: 104.4,
      sourceAmountWithoutFees: 100,
      fees: { USD: 3.2 },
    });
    expect(await snapshot(t)).toEqual(before);
  });

  it('refuses a bitcoin address for ETH, naming dest', async () => {
    const response = await postSigned(t, partner, '/v3/orders/quote/partner', {
      sourceAmount: 100,
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      dest: `bitcoin:${BTC_TESTNET}`,
    });
    await expectEnvelopeResponse(response, 400, 'ValidationException', { problematicField: 'dest' });
  });
});

describe('bearer auth', () => {
  it('reads a reservation with bearer auth too', async () => {
    const { reservation } = await reserve(t, partner, lockedBody(partner));
    const response = await fetch(`${t.baseUrl}/v3/orders/reservation/${reservation}`, {
      headers: { authorization: `Bearer ${partner.secretKey}` },
    });
    expect(response.status).toBe(200);
  });
});
