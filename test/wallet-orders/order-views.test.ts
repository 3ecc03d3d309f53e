import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundException, RampartClient } from '../../sdk/src/index.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  CARDS,
  createOrder,
  lockedReservation,
  orderBody,
  roomyPartner,
  setLimits,
  startCardOrderApp,
  testCard,
} from './support.ts';

/**
 * Wyre's order reads beyond GET /v3/orders/{id} (docs/contract.md decisions 40–42, and the
 * public view of "Card orders"): /full, /list, the unauthenticated read and the 3-D Secure
 * variant of the authorization call, through the SDK where it has them.
 */
let t: TestApp;
let partner: PartnerCredentials;
let client: RampartClient;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp());
  client = clientOf(partner);
});
afterAll(async () => t.close());

function clientOf(credentials: PartnerCredentials) {
  return new RampartClient({
    baseUrl: t.baseUrl,
    auth: { type: 'signature', apiKey: credentials.apiKey, secretKey: credentials.secretKey },
  });
}

async function orderWith(
  owner: PartnerCredentials,
  number: string,
  extra: Record<string, unknown> = {},
  reservationExtra: Record<string, unknown> = {},
) {
  const { reservation, amount } = await lockedReservation(t, owner, reservationExtra);
  const created = await createOrder(
    t,
    owner,
    orderBody(owner, reservation, amount, { debitCard: testCard(number), ...extra }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return String(created.body.id);
}

const PUBLIC_FIELDS = [
  'id',
  'status',
  'createdAt',
  'sourceCurrency',
  'sourceAmount',
  'purchaseAmount',
  'destCurrency',
  'destAmount',
  'dest',
  'transferId',
  'errorMessage',
].sort();

describe('GET /v3/orders/{orderId} without credentials', () => {
  it('answers only the public fields: nothing about the buyer', async () => {
    const orderId = await orderWith(partner, CARDS.approve);
    const answer = await fetch(`${t.baseUrl}/v3/orders/${orderId}`);
    const text = await answer.text();
    expect(answer.status, text).toBe(200);
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(PUBLIC_FIELDS);
    expect(body).toMatchObject({ id: orderId, status: 'RUNNING_CHECKS', sourceCurrency: 'USD' });
    for (const secret of ['ada@example.com', '+14155550100', 'Lovelace', '1111', '97209', '203.0.113.7']) {
      expect(text).not.toContain(secret);
    }
  });

  it('gives the whole order to its partner, and still 401 to a signature that does not verify', async () => {
    const orderId = await orderWith(partner, CARDS.approve);
    const whole = await client.orders.get(orderId);
    expect(whole).toMatchObject({
      id: orderId,
      email: 'ada@example.com',
      paymentMethodName: 'Visa ending 1111',
    });
    const forged = await signedFetch(
      t,
      { ...partner, secretKey: `${partner.secretKey}x` },
      {
        path: `/v3/orders/${orderId}`,
      },
    );
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ errorCode: 'accessDenied.invalidSignature' });
    const badBearer = await fetch(`${t.baseUrl}/v3/orders/${orderId}`, {
      headers: { authorization: 'Bearer not-a-key' },
    });
    expect(badBearer.status).toBe(401);
    const keyOnly = await fetch(`${t.baseUrl}/v3/orders/${orderId}`, {
      headers: { 'x-api-key': partner.apiKey },
    });
    expect(keyOnly.status).toBe(401);
  });

  it('counts anonymous reads against the per-IP rate limit like every open route', async () => {
    const limited = await startTestApp({ env: { RAMPART_RATE_LIMIT_PER_IP: '3' } });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await fetch(`${limited.baseUrl}/v3/orders/WO_2222222222A`)).status);
      expect(statuses).toEqual([404, 404, 404, 429, 429]);
    } finally {
      await limited.close();
    }
  });

  it('answers an unknown id 404 without credentials too', async () => {
    const answer = await fetch(`${t.baseUrl}/v3/orders/WO_2222222222A`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ type: 'NotFoundException' });
  });
});

describe('GET /v3/orders/{orderId}/full', () => {
  it('adds the failure details: GENERAL once FAILED, null codes', async () => {
    const running = await orderWith(partner, CARDS.approve);
    expect(await client.orders.getFull(running)).toMatchObject({
      id: running,
      orderType: 'DOMESTIC',
      authCodesRequested: false,
      errorCategory: null,
      errorCode: null,
      failureReason: null,
      paymentNetworkErrorCode: null,
      internalErrorCode: null,
    });
    const declined = await orderWith(partner, CARDS.approve, { trigger3ds: true });
    const state = await client.cards.authorization(declined);
    const page = new URL(String(state.authorization3dsUrl));
    const decline = await fetch(`${t.baseUrl}${page.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=decline',
    });
    expect(decline.status).toBe(200);
    expect(await client.orders.getFull(declined)).toMatchObject({
      status: 'FAILED',
      authCodesRequested: true,
      errorCategory: 'GENERAL',
      errorCode: 'validation.authorization3dsDeclined',
      paymentNetworkErrorCode: null,
      internalErrorCode: null,
    });
  });

  it('is 404 for another partner’s order', async () => {
    const other = await createPartner(t, { name: 'Other partner' });
    const orderId = await orderWith(partner, CARDS.approve);
    const error = await clientOf(other)
      .orders.getFull(orderId)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundException);
  });
});

describe('GET /v3/orders/list', () => {
  it('pages the caller’s own orders newest first, each in full, and never another partner’s', async () => {
    const own = await roomyPartner(t, 'Lister');
    const someoneElse = await roomyPartner(t, 'Someone else');
    const first = await orderWith(own, CARDS.approve);
    const second = await orderWith(own, CARDS.mastercard);
    await orderWith(someoneElse, CARDS.approve);
    const page = await clientOf(own).orders.list();
    expect(page).toMatchObject({ position: 0, recordsTotal: 2, recordsFiltered: 2 });
    expect(page.data.map((order) => order.id)).toEqual([second, first]);
    expect(page.data[0]).toMatchObject({ errorCategory: null, paymentNetworkErrorCode: null });
    const rest = await clientOf(own).orders.list({ offset: 1, limit: 1 });
    expect(rest).toMatchObject({ position: 1, recordsTotal: 2 });
    expect(rest.data.map((order) => order.id)).toEqual([first]);
  });

  it('is not taken for an order id, and needs credentials', async () => {
    expect((await clientOf(partner).orders.list({ limit: 100 })).data.length).toBeGreaterThan(0);
    const anonymous = await fetch(`${t.baseUrl}/v3/orders/list`);
    expect(anonymous.status).toBe(401);
    const tooMany = await signedFetch(t, partner, { path: '/v3/orders/list?limit=101' });
    expect(tooMany.status).toBe(400);
  });

  it('masquerading as a user lists only the orders that user bought', async () => {
    const users = await createPartner(t, { name: 'Users partner', usersApi: true });
    await setLimits(t, users.accountId, {
      STANDARD: { daily: '100000', weekly: '100000', yearly: '100000' },
    });
    const created = await signedFetch(t, users, { method: 'POST', path: '/v3/users', body: '{}' });
    expect(created.status).toBe(200);
    const userId = String(((await created.json()) as { id: string }).id);
    await orderWith(users, CARDS.approve);
    const bought = await orderWith(users, CARDS.approve, { owner: `user:${userId}` });
    const asUser = clientOf(users).masquerade(`user:${userId}`);
    const page = await asUser.orders.list();
    expect(page.data.map((order) => order.id)).toEqual([bought]);
    expect((await clientOf(users).orders.list()).recordsTotal).toBe(2);
  });
});

describe('GET /v3/debitcard/authorization/{orderId}/with-redirection', () => {
  const redirects = {
    redirectUrl: 'https://wallet.example.com/done',
    failureRedirectUrl: 'https://wallet.example.com/failed',
  };

  async function redirectionPage(orderId: string) {
    const state = await client.cards.authorizationWithRedirection(orderId);
    expect(state).toMatchObject({ walletOrderId: orderId, smsNeeded: false, card2faNeeded: false });
    return new URL(String(state.authorization3dsUrl));
  }

  const decide = (url: URL, decision: string) =>
    fetch(`${t.baseUrl}${url.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `decision=${decision}&redirect=reservation`,
      redirect: 'manual',
    });

  it('sends the buyer on to the reservation’s redirectUrl once approved', async () => {
    const orderId = await orderWith(partner, CARDS.threeDs, {}, redirects);
    const url = await redirectionPage(orderId);
    expect(url.searchParams.get('redirect')).toBe('reservation');
    const page = await fetch(`${t.baseUrl}${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain(
      "form-action 'self' https://wallet.example.com",
    );
    expect(await page.text()).toContain('name="redirect" value="reservation"');
    const approve = await decide(url, 'approve');
    expect(approve.status).toBe(303);
    expect(approve.headers.get('location')).toBe(`https://wallet.example.com/done?orderId=${orderId}`);
  });

  it('sends a declined buyer to failureRedirectUrl, and answers like the plain call otherwise', async () => {
    const orderId = await orderWith(partner, CARDS.approve, { trigger3ds: true }, redirects);
    const decline = await decide(await redirectionPage(orderId), 'decline');
    expect(decline.status).toBe(303);
    expect(decline.headers.get('location')).toBe(`https://wallet.example.com/failed?orderId=${orderId}`);
    expect(await client.cards.authorizationWithRedirection(orderId)).toEqual({
      walletOrderId: orderId,
      smsNeeded: false,
      card2faNeeded: false,
      authorization3dsUrl: null,
    });
    const codes = await orderWith(partner, CARDS.codes);
    expect(await client.cards.authorizationWithRedirection(codes)).toEqual(
      await client.cards.authorization(codes),
    );
  });

  it('shows the outcome page when the reservation named no URLs, and hides orders of others', async () => {
    const orderId = await orderWith(partner, CARDS.threeDs);
    const approve = await decide(await redirectionPage(orderId), 'approve');
    expect(approve.status).toBe(200);
    expect(await approve.text()).toContain('approved');
    const other = await createPartner(t, { name: 'Curious partner' });
    const error = await clientOf(other)
      .cards.authorizationWithRedirection(orderId)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundException);
    const anonymous = await fetch(`${t.baseUrl}/v3/debitcard/authorization/${orderId}/with-redirection`);
    expect(anonymous.status).toBe(401);
  });
});
