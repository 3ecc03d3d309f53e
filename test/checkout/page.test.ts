import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_SECURITY_HEADERS } from '../../src/checkout/routes.ts';
import { consumeReservation } from '../../src/orders/service.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { Money } from '../../src/platform/money.ts';
import { DEFAULT_USD_PRICES } from '../../src/pricing/default-prices.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { CHECKOUT_LINK_PARAMS, masterScope } from '../orders/support.ts';
import { advanceClock, checkoutBody, checkoutLink, postJson, snapshot } from './support.ts';

/**
 * GET /purchase and its assets over HTTP (the browser tests drive the page itself): what the
 * page shows for a reservation, and that every refusal is an HTML page for people (API.md
 * decision 11) which changes nothing.
 */
let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;

beforeAll(async () => {
  t = await startTestApp({ env: { RAMPART_CHECKOUT_URL: 'https://pay.rampart.example' } });
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
});
afterAll(async () => t?.close());

const get = (path: string) => fetch(`${t.baseUrl}${path}`, { redirect: 'manual' });

function expectStrictPageHeaders(response: Response) {
  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp).toBe(CHECKOUT_SECURITY_HEADERS['content-security-policy']);
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(response.headers.get('cache-control')).toBe('no-store');
}

async function expectHtmlError(response: Response, status: number, heading: string) {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expectStrictPageHeaders(response);
  expect(text).toContain(`<h1>${heading}</h1>`);
  expect(text).not.toContain('"errorCode"');
  return text;
}

describe('the reservation link', () => {
  it('points at this page on RAMPART_CHECKOUT_URL with API.md’s parameters', async () => {
    const { link, reservation } = await checkoutLink(t, partner, checkoutBody(partner));
    const url = new URL(link);
    expect(url.origin).toBe('https://pay.rampart.example');
    expect(url.pathname).toBe('/purchase');
    expect([...url.searchParams.keys()]).toEqual(CHECKOUT_LINK_PARAMS);
    expect(url.searchParams.get('reservation')).toBe(reservation);
    expect(url.searchParams.get('accountId')).toBe(partner.accountId);
  });
});

describe('GET /purchase', () => {
  it('shows a locked quote with the strict CSP, our own assets only and prefilled billing details', async () => {
    const { path, reservation } = await checkoutLink(t, partner, checkoutBody(partner));
    const response = await get(path);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectStrictPageHeaders(response);
    expect(text).toContain(`data-reservation="${reservation}"`);
    expect(text).toMatch(/<dd id="quote-source-amount">\d+\.\d{2} USD<\/dd>/);
    expect(text).toMatch(/<dd id="quote-dest-amount">[\d.]+ ETH<\/dd>/);
    expect(text).toMatch(/<dd id="quote-rate">1 USD = [\d.]+ ETH<\/dd>/);
    expect(text).toContain('value="Ada"');
    expect(text).toContain('value="94105"');
    // No inline script or style, nothing from another origin.
    expect(text).not.toMatch(/<script(?![^>]*\ssrc="\/purchase\/assets\/)/);
    expect(text).not.toMatch(/<style|\sstyle="|\son[a-z]+=/i);
    expect(text).not.toMatch(/(<link[^>]*\shref|\ssrc)="(https?:)?\/\//);
    // The only way off the page is the merchant's own failure URL, as stored in the reservation.
    expect(text).toContain('<a href="https://merchant.example/failed">Cancel and return to the merchant</a>');
    // Card inputs carry no name: a form sent without our script cannot carry the card.
    expect(text).toMatch(/<input id="f-card-number"(?![^>]*\sname=)[^>]*>/);
  });

  it('shows a fee breakdown that adds up to the charge: 25 USD of ETH is 25 + 1.03 + 0.0004 ETH × 3000 = 27.23', async () => {
    // The network fee at the price of ETH (3000 USD, the sandbox reference), rounded up to the cent.
    const ethUsd = new Money(DEFAULT_USD_PRICES.ETH!);
    const networkFee = new Money('0.0004').mul(ethUsd).toDecimalPlaces(2, Money.ROUND_UP).toFixed(2);
    const locked = await checkoutLink(t, partner, checkoutBody(partner, { sourceAmount: '25' }));
    const text = await (await get(locked.path)).text();
    const cell = (id: string) => new RegExp(`<dd id="${id}">([^<]+)`).exec(text)?.[1] ?? '';
    expect([cell('bd-purchase'), cell('bd-processingFee'), cell('bd-networkFee')]).toEqual([
      '25.00 USD',
      '1.03 USD',
      `${networkFee} USD`,
    ]);
    expect(text).toContain('0.0004 ETH paid to the network');
    expect(cell('quote-source-amount')).toBe('27.23 USD');
    const sum = ['bd-purchase', 'bd-processingFee', 'bd-networkFee']
      .map((id) => new Money(cell(id).split(' ')[0]!))
      .reduce((a, b) => a.add(b));
    expect(sum.toFixed(2)).toBe('27.23');
    // The page's JSON, for a locked and for a picked amount, says the same.
    const { reservation } = await checkoutLink(t, partner, {
      amount: '50',
      sourceCurrency: 'USD',
      referrerAccountId: partner.accountId,
      country: 'US',
    });
    for (const body of [{ reservation: locked.reservation }, { reservation, amount: '25' }]) {
      const response = await postJson(t, '/purchase/quote', {
        accountId: partner.accountId,
        sourceCurrency: 'USD',
        destCurrency: 'ETH',
        ...body,
      });
      const quote = (await response.json()) as {
        sourceAmount: string;
        display: { lines: { key: string; text: string }[]; total: string };
      };
      expect(quote.sourceAmount).toBe('27.23');
      expect(quote.display.lines.map((line) => line.text)).toEqual([
        '25.00 USD',
        '1.03 USD',
        `${networkFee} USD`,
      ]);
      expect(quote.display.total).toBe('27.23 USD');
    }
  });

  it('shows locked fields read-only and lets the buyer pick an amount when the rate is not locked', async () => {
    const { path } = await checkoutLink(t, partner, {
      amount: '50',
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      referrerAccountId: partner.accountId,
      country: 'US',
      email: 'buyer@example.com',
      lockFields: ['sourceCurrency', 'email', 'firstName'],
    });
    const text = await (await get(path)).text();
    expect(text).toMatch(/<input id="f-amount"[^>]*value="50"(?![^>]*readonly)[^>]*>/);
    expect(text).toMatch(/<input id="f-sourceCurrency"[^>]*value="USD"[^>]*readonly/);
    expect(text).toMatch(/<input id="f-email"[^>]*value="buyer@example.com"[^>]*readonly/);
    // firstName is locked but the partner gave none: the buyer fills it in.
    expect(text).toMatch(/<input id="f-firstName"(?![^>]*readonly)[^>]*>/);
    expect(text).toMatch(/<select id="f-destCurrency"/);
    expect(text).toContain('<div id="quote" aria-live="polite" hidden>');
  });

  it('escapes what the partner put in the reservation', async () => {
    const hostile = '"><script>alert(1)</script>';
    const { path } = await checkoutLink(t, partner, checkoutBody(partner, { street1: hostile }));
    const text = await (await get(path)).text();
    expect(text).not.toContain('<script>alert(1)');
    expect(text).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('answers an unknown, foreign, used or expired reservation with an HTML page, changing nothing', async () => {
    const { path, reservation } = await checkoutLink(t, partner, checkoutBody(partner));
    const before = await snapshot(t);
    await expectHtmlError(
      await get(path.replace(reservation, 'A'.repeat(20))),
      404,
      'This checkout link is not valid',
    );
    await expectHtmlError(
      await get(path.replace(`accountId=${partner.accountId}`, `accountId=${other.accountId}`)),
      404,
      'This checkout link is not valid',
    );
    expect(await snapshot(t)).toEqual(before);

    await withTransaction(t.ctx.db, (tx) => consumeReservation(t.ctx, tx, masterScope(partner), reservation));
    const used = await expectHtmlError(await get(path), 410, 'This checkout link has already been used');
    // A dead end still shows the way back to the partner.
    expect(used).toContain('<a id="back" class="button" href="https://merchant.example/failed">');

    const fresh = await checkoutLink(t, partner, checkoutBody(partner));
    await advanceClock(t, 15 * 60 + 1);
    const expired = await expectHtmlError(await get(fresh.path), 410, 'This checkout link has expired');
    expect(expired).toContain('Nothing was charged');
    expect(expired).toContain('<a id="back" class="button" href="https://merchant.example/failed">');
  });

  it('refuses a link whose return address was altered: never an open redirect', async () => {
    const { path } = await checkoutLink(t, partner, checkoutBody(partner));
    const swapped = path.replace(
      encodeURIComponent('https://merchant.example/done?session=42'),
      encodeURIComponent('https://evil.example/'),
    );
    expect(swapped).not.toBe(path);
    await expectHtmlError(await get(swapped), 400, 'This checkout link was altered');
    const noneStored = await checkoutLink(t, partner, checkoutBody(partner, { redirectUrl: undefined }));
    await expectHtmlError(
      await get(`${noneStored.path}&redirectUrl=${encodeURIComponent('javascript:alert(1)')}`),
      400,
      'This checkout link was altered',
    );
  });

  it('answers malformed links with an HTML page', async () => {
    const { path } = await checkoutLink(t, partner, checkoutBody(partner));
    const before = await snapshot(t);
    await expectHtmlError(await get('/purchase'), 400, 'This checkout link is not complete');
    await expectHtmlError(
      await get(path.replace(/accountId=[^&]+&/, '')),
      400,
      'This checkout link is not complete',
    );
    await expectHtmlError(
      await get(`${path}&cardNumber=4111111111111111`),
      400,
      'This checkout link is not complete',
    );
    await expectHtmlError(
      await get(`/purchase?accountId=AC_X&reservation=${'R'.repeat(65)}`),
      400,
      'This checkout link is not complete',
    );
    await expectHtmlError(
      await get(`${path}&order=WO_AAAAAAAAAAA&orderToken=forged`),
      404,
      'Order not found',
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('says JavaScript is needed when a form is submitted without our script', async () => {
    const response = await fetch(`${t.baseUrl}/purchase/no-script`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'firstName=Ada',
    });
    expect(response.status).toBe(400);
    expectStrictPageHeaders(response);
    expect(await response.text()).toContain('Checkout needs JavaScript');
  });
});

describe('assets', () => {
  it('serves the script and stylesheet ourselves, typed and not sniffable', async () => {
    const js = await get('/purchase/assets/checkout.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await js.text()).toContain("'use strict'");
    const css = await get('/purchase/assets/checkout.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    await expectEnvelopeResponse(await get('/purchase/assets/__proto__'), 404, 'NotFoundException');
    await expectEnvelopeResponse(await get('/purchase/assets/nothing.js'), 404, 'NotFoundException');
  });
});

describe('the page’s JSON endpoints refuse bad input with the envelope, changing nothing', () => {
  it('POST /purchase/quote', async () => {
    const locked = await checkoutLink(t, partner, checkoutBody(partner));
    const { reservation } = await checkoutLink(t, partner, {
      amount: '50',
      sourceCurrency: 'USD',
      referrerAccountId: partner.accountId,
      country: 'US',
      lockFields: ['sourceCurrency'],
    });
    const base = {
      accountId: partner.accountId,
      reservation,
      amount: '60',
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
    };
    const before = await snapshot(t);
    const cases: [unknown, number, string, string, string?][] = [
      [{ ...base, amount: '-1' }, 400, 'ValidationException', 'amount'],
      [{ ...base, amount: '1e3' }, 400, 'ValidationException', 'amount'],
      [{ ...base, amount: '0.001' }, 400, 'ValidationException', 'amount'],
      [{ ...base, amount: true }, 400, 'ValidationException', 'amount'],
      [
        { ...base, sourceCurrency: 'EUR' },
        400,
        'ValidationException',
        'sourceCurrency',
        'validation.fieldLocked',
      ],
      [{ ...base, destCurrency: 'usd' }, 400, 'ValidationException', 'destCurrency'],
      [
        { ...base, accountId: other.accountId },
        400,
        'ValidationException',
        'reservation',
        'illegalReservation',
      ],
      [
        { ...base, reservation: 'B'.repeat(20) },
        400,
        'ValidationException',
        'reservation',
        'illegalReservation',
      ],
      [{ ...base, reservation: 'x'.repeat(65) }, 400, 'ValidationException', 'reservation'],
      [{ ...base, extra: 1 }, 400, 'ValidationException', 'extra', 'validation.unknownField'],
      [{ accountId: partner.accountId }, 400, 'FieldRequiredException', 'reservation'],
      ['{"accountId":', 400, 'JsonFormatException', ''],
    ];
    for (const [body, status, type, field, errorCode] of cases) {
      const response = await postJson(t, '/purchase/quote', body);
      await expectEnvelopeResponse(response, status, type, {
        ...(field ? { problematicField: field } : {}),
        ...(errorCode ? { errorCode } : {}),
      });
    }
    expect(await snapshot(t)).toEqual(before);
    // A rate-locked reservation answers its stored quote, as text.
    const quote = await postJson(t, '/purchase/quote', { ...base, reservation: locked.reservation });
    expect(quote.status).toBe(200);
    expect(await quote.json()).toMatchObject({
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      // Exact, as the order must repeat it; the display text writes the cents out.
      sourceAmount: expect.stringMatching(/^\d+(\.\d{1,2})?$/),
      display: { total: expect.stringMatching(/^\d+\.\d{2} USD$/) },
    });
    const picked = await postJson(t, '/purchase/quote', base);
    expect(await picked.json()).toMatchObject({
      sourceAmountWithoutFees: '60',
      sourceCurrency: 'USD',
      display: {
        lines: [{ key: 'purchase', text: '60.00 USD' }, { key: 'processingFee' }, { key: 'networkFee' }],
      },
    });
  });

  it('GET /purchase/orders/{id} and POST …/codes', async () => {
    const { reservation } = await checkoutLink(t, partner, checkoutBody(partner));
    const query = `accountId=${partner.accountId}&reservation=${reservation}`;
    const before = await snapshot(t);
    await expectEnvelopeResponse(
      await get(`/purchase/orders/WO_AAAAAAAAAAA?${query}&orderToken=forged`),
      404,
      'NotFoundException',
      {
        errorCode: 'checkout.unknownOrder',
      },
    );
    await expectEnvelopeResponse(
      await get(`/purchase/orders/WO_AAAAAAAAAAA?${query}`),
      400,
      'FieldRequiredException',
      {
        problematicField: 'orderToken',
      },
    );
    const codes = {
      accountId: partner.accountId,
      reservation,
      orderToken: 'forged',
      type: 'SMS',
      sms: '123456',
    };
    await expectEnvelopeResponse(
      await postJson(t, '/purchase/orders/WO_AAAAAAAAAAA/codes', codes),
      404,
      'NotFoundException',
    );
    await expectEnvelopeResponse(
      await postJson(t, '/purchase/orders/WO_AAAAAAAAAAA/codes', { ...codes, sms: '12345' }),
      400,
      'ValidationException',
      { problematicField: 'sms' },
    );
    await expectEnvelopeResponse(
      await postJson(t, '/purchase/orders/WO_AAAAAAAAAAA/codes', { ...codes, type: 'CARD2FA' }),
      400,
      'FieldRequiredException',
      { problematicField: 'card2fa' },
    );
    await expectEnvelopeResponse(
      await postJson(t, '/purchase/orders/WO_AAAAAAAAAAA/codes', { ...codes, type: 'EMAIL' }),
      400,
      'ValidationException',
      { problematicField: 'type' },
    );
    expect(await snapshot(t)).toEqual(before);
  });
});
