import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerChainSettlers } from '../../src/chains/port.ts';
import { findReservationById } from '../../src/orders/store.ts';
import { JobRunner } from '../../src/platform/jobs/runner.ts';
import { Money } from '../../src/platform/money.ts';
import { registerWalletOrderJobs } from '../../src/wallet-orders/worker.ts';
import { advanceClock, checkoutBody, checkoutLink, expectCardsNowhere } from '../checkout/support.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { solidPng } from './images.ts';
import { expectAccessible, focusedId, launchChromium, SCREENS, screenshot, tabTo } from './support.ts';

/**
 * Whole purchases through the hosted checkout in a real headless Chromium, at desktop and phone
 * sizes, driven by the keyboard alone, against the real order service, sandbox card processor,
 * limits and sandbox chain, with a real job runner moving orders: frictionless, SMS and card
 * codes, 3-D Secure, a decline, an expired link. Every screen passes axe-core with no serious or
 * critical violation and no CSP violation. The merchant's site is answered by the browser itself
 * (route), so the way back can be followed without leaving the machine.
 */

const CARDS = {
  approve: '4111111111111111',
  decline: '4000000000000002',
  codes: '4000000000001018',
  threeDs: '4000000000003220',
};
const SANDBOX_CODE = '000000';
const EXPLORER = 'https://explorer.example/tx/{hash}';

let t: TestApp;
let partner: PartnerCredentials;
let browser: Browser;
let jobs: JobRunner;
let addressCounter = 0;

beforeAll(async () => {
  t = await startTestApp({
    env: { RAMPART_SANDBOX_CHAIN_DELAY_MS: '0', RAMPART_EXPLORER_TX_URLS: `ethereum=${EXPLORER}` },
  });
  partner = await createPartner(t);
  const branded = await signedFetch(t, partner, {
    method: 'POST',
    path: '/v3/checkout/branding',
    body: JSON.stringify({
      name: 'Acme Wallet',
      accentColor: '#5b21b6',
      logo: solidPng(96, 32, [91, 33, 182]).toString('base64'),
    }),
  });
  expect(branded.status, await branded.clone().text()).toBe(200);
  jobs = new JobRunner(t.ctx.db, t.app.log, 50);
  registerChainSettlers(jobs, t.ctx);
  registerWalletOrderJobs(jobs, t.ctx);
  jobs.start();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await jobs?.stop();
  await t?.close();
});

/** A $20 rate-locked reservation at an address of its own, so limits of one test never touch another. */
function purchase(extra: Record<string, unknown> = {}) {
  addressCounter += 1;
  return checkoutBody(partner, { sourceAmount: '20', street1: `${addressCounter} Market St`, ...extra });
}

interface Session {
  context: BrowserContext;
  page: Page;
  problems: string[];
}

async function openSession(options: (typeof SCREENS)[number][1]): Promise<Session> {
  const context = await browser.newContext(options);
  // The merchant's pages, answered inside the browser.
  await context.route('https://merchant.example/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Merchant</title>' }),
  );
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  // A refusal's HTTP status is logged by the browser as a failed load; that is the page at work.
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text()))
      problems.push(message.text());
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(t.baseUrl) && !url.startsWith('https://merchant.example/'))
      problems.push(`request to ${url}`);
  });
  return { context, page, problems };
}

/** Card details typed as a buyer types them, Tab from field to field: grouped as typed, MM/YY. */
async function typeCard(page: Page, number: string) {
  await tabTo(page, 'f-card-number');
  await page.keyboard.type(number);
  await page.keyboard.press('Tab');
  await page.keyboard.type('1230');
  await page.keyboard.press('Tab');
  await page.keyboard.type('123');
}

async function payByKeyboard(page: Page) {
  await tabTo(page, 'pay');
  await page.keyboard.press('Enter');
}

async function readOrder(orderId: string) {
  const response = await signedFetch(t, partner, { path: `/v3/orders/${orderId}` });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { order: JSON.parse(text) as Record<string, unknown>, text };
}

async function waitForStatus(page: Page, text: string) {
  await page.waitForFunction(
    (expected) => document.getElementById('progress-status')?.textContent === expected,
    text,
    { timeout: 30_000 },
  );
}

describe.each(SCREENS)('hosted checkout on %s', (screen, options) => {
  it('a frictionless purchase, keyboard only: branded page, grouped card, MM/YY, progress, receipt, back to the partner', async () => {
    const { url, reservation } = await checkoutLink(t, partner, purchase());
    const { context, page, problems } = await openSession(options);
    try {
      await page.goto(url);
      expect(await page.title()).toBe('Pay Acme Wallet');
      expect(await page.textContent('#partner-name')).toBe('Acme Wallet');
      expect(await page.getAttribute('.brand-logo', 'alt')).toBe('Acme Wallet logo');
      expect(
        await page.evaluate(() => getComputedStyle(document.getElementById('pay')!).backgroundColor),
      ).toBe('rgb(91, 33, 182)');
      // Amounts at display precision, the breakdown adding up to the charge shown.
      expect(await page.textContent('#quote-dest-amount')).toMatch(/^0\.\d{1,8} ETH$/);
      const parts = await Promise.all(
        ['#bd-purchase', '#bd-processingFee', '#bd-networkFee'].map(
          async (id) => new Money((await page.textContent(id))!.split(' ')[0]!),
        ),
      );
      const total = (await page.textContent('#quote-source-amount'))!;
      expect(parts.reduce((a, b) => a.add(b)).toFixed(2)).toBe(total.replace(' USD', ''));
      await expectAccessible(page, `${screen} form`);
      await screenshot(page, `checkout-form-${screen}`);

      await typeCard(page, CARDS.approve);
      expect(await page.inputValue('#f-card-number')).toBe('4111 1111 1111 1111');
      expect(await page.textContent('#f-card-number-brand')).toBe('Visa card');
      expect(await page.inputValue('#f-card-expiry')).toBe('12/30');
      if (screen === 'phone') await screenshot(page, 'checkout-card-phone');
      await payByKeyboard(page);
      await waitForStatus(page, 'Purchase complete.');
      // The receipt: order id, amounts, wallet, transaction with its explorer page; focus on it.
      expect(await focusedId(page)).toBe('progress-heading');
      const orderId = (await page.textContent('#r-order'))!;
      expect(orderId).toMatch(/^WO_/);
      expect(await page.textContent('#r-paid')).toBe(total);
      const { order, text } = await readOrder(orderId);
      expect(order).toMatchObject({ status: 'COMPLETE', reservationId: reservation });
      const exactDest = new Money(/"destAmount":([0-9.]+)/.exec(text)![1]!);
      const received = new Money((await page.textContent('#r-received'))!.split(' ')[0]!);
      expect(received.lte(exactDest) && exactDest.minus(received).lt('0.00000001')).toBe(true);
      expect(await page.textContent('#r-dest')).toBe(String(order.dest).replace(/^ethereum:/, ''));
      const hash = (await page.textContent('#r-tx .hash'))!;
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await page.getAttribute('#explorer-link', 'href')).toBe(EXPLORER.replace('{hash}', hash));
      expect(await page.inputValue('#f-card-number')).toBe('');
      expect(await page.textContent('#steps [aria-current="step"]')).toBe('Done');
      expect(await page.isVisible('#expiry')).toBe(false);
      await expectAccessible(page, `${screen} receipt`);
      await page.locator('#receipt').scrollIntoViewIfNeeded();
      await screenshot(page, `checkout-receipt-${screen}`);
      // The way back: a button to the partner's page, with Wyre's values on it.
      expect(await page.textContent('#back')).toBe('Back to Acme Wallet');
      await tabTo(page, 'back');
      await page.keyboard.press('Enter');
      await page.waitForURL(/^https:\/\/merchant\.example\/done/);
      const query = Object.fromEntries(new URL(page.url()).searchParams);
      expect(query).toMatchObject({ orderId, session: '42', accountId: partner.accountId });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
    await expectCardsNowhere(t, [CARDS.approve]);
  });

  it('a purchase with SMS and card codes, a wrong code said plainly, then the right ones', async () => {
    const { url } = await checkoutLink(t, partner, purchase());
    const { context, page, problems } = await openSession(options);
    try {
      await page.goto(url);
      await typeCard(page, CARDS.codes);
      await payByKeyboard(page);
      await page.waitForSelector('#codes:not([hidden])', { timeout: 15_000 });
      expect(await focusedId(page)).toBe('codes-heading');
      expect(await page.textContent('#steps [aria-current="step"]')).toBe('Confirming with your bank');
      await expectAccessible(page, `${screen} codes`);
      await screenshot(page, `checkout-codes-${screen}`);
      await tabTo(page, 'f-sms');
      await page.keyboard.type('123456');
      await tabTo(page, 'f-card2fa');
      await page.keyboard.type(SANDBOX_CODE);
      await page.keyboard.press('Enter');
      await page.waitForSelector('#errors:not([hidden])');
      expect(await page.textContent('#errors')).toContain('That code is not right');
      await page.fill('#f-sms', '');
      await tabTo(page, 'f-sms');
      await page.keyboard.type(SANDBOX_CODE);
      await page.keyboard.press('Enter');
      await waitForStatus(page, 'Purchase complete.');
      const { order } = await readOrder((await page.textContent('#r-order'))!);
      expect(order.status).toBe('COMPLETE');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a purchase through the issuer’s 3-D Secure page and back', async () => {
    const { url } = await checkoutLink(t, partner, purchase());
    const { context, page } = await openSession(options);
    try {
      await page.goto(url);
      await typeCard(page, CARDS.threeDs);
      await payByKeyboard(page);
      await page.waitForURL(/\/sandbox\/3ds\//, { timeout: 15_000 });
      await expectAccessible(page, `${screen} 3-D Secure`);
      await screenshot(page, `checkout-3ds-${screen}`);
      await tabTo(page, 'approve');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/purchase\?.*order=WO_/);
      await waitForStatus(page, 'Purchase complete.');
      expect(await page.textContent('#r-order')).toMatch(/^WO_/);
      expect(await page.textContent('#back')).toBe('Back to Acme Wallet');
      await expectAccessible(page, `${screen} back from 3-D Secure`);
    } finally {
      await context.close();
    }
  });

  it('a decline in plain words, never the processor’s code, and the way forward: another card', async () => {
    const { url } = await checkoutLink(t, partner, purchase());
    const { context, page, problems } = await openSession(options);
    try {
      await page.goto(url);
      await typeCard(page, CARDS.decline);
      await payByKeyboard(page);
      await page.waitForSelector('#errors:not([hidden])');
      expect(await focusedId(page)).toBe('errors');
      const said = (await page.textContent('#errors'))!;
      expect(said).toContain('Your card was declined.');
      expect(said).not.toMatch(/\b05\b|honor|honour/i);
      expect(await page.textContent('#f-card-number-error')).toContain('declined');
      await expectAccessible(page, `${screen} declined`);
      await screenshot(page, `checkout-declined-${screen}`);
      await page.fill('#f-card-number', '');
      await tabTo(page, 'f-card-number');
      await page.keyboard.type(CARDS.approve);
      await payByKeyboard(page);
      await waitForStatus(page, 'Purchase complete.');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an expired link: says so, charges nothing, and leads back to the partner', async () => {
    const { url, reservation } = await checkoutLink(t, partner, purchase());
    await advanceClock(t, 15 * 60 + 1);
    const { context, page, problems } = await openSession(options);
    try {
      const response = await page.goto(url);
      expect(response?.status()).toBe(410);
      expect(await page.textContent('h1')).toBe('This checkout link has expired');
      expect(await page.textContent('#error-message')).toContain('Nothing was charged');
      expect(await page.textContent('#partner-name')).toBe('Acme Wallet');
      await expectAccessible(page, `${screen} expired`);
      await screenshot(page, `checkout-expired-${screen}`);
      await tabTo(page, 'back');
      await page.keyboard.press('Enter');
      await page.waitForURL(/^https:\/\/merchant\.example\/failed/);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
    expect(await findReservationById(t.database.db, reservation)).toMatchObject({ used: false });
  });
});

describe('hosted checkout: ends without a receipt', () => {
  it('a declined 3-D Secure fails the order, says so in plain words and offers the way back', async () => {
    const { url } = await checkoutLink(t, partner, purchase());
    const { context, page, problems } = await openSession(SCREENS[0][1]);
    try {
      await page.goto(url);
      await typeCard(page, CARDS.threeDs);
      await payByKeyboard(page);
      await page.waitForURL(/\/sandbox\/3ds\//, { timeout: 15_000 });
      await tabTo(page, 'decline');
      await page.keyboard.press('Enter');
      await waitForStatus(page, 'The purchase did not go through.');
      expect(await page.textContent('#progress-detail')).toContain('did not approve the payment');
      expect(await page.isVisible('#receipt')).toBe(false);
      await expectAccessible(page, 'failed order');
      expect(await page.getAttribute('#back', 'href')).toMatch(
        /^https:\/\/merchant\.example\/failed\?orderId=WO_/,
      );
      await tabTo(page, 'back');
      await page.keyboard.press('Enter');
      await page.waitForURL(/^https:\/\/merchant\.example\/failed/);
      const { order } = await readOrder(new URL(page.url()).searchParams.get('orderId')!);
      expect(order.status).toBe('FAILED');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refuses an order above the daily limit, saying so, without charging or spending the link', async () => {
    const { url, reservation } = await checkoutLink(t, partner, purchase({ sourceAmount: '600' }));
    const { context, page } = await openSession(SCREENS[0][1]);
    try {
      await page.goto(url);
      await typeCard(page, CARDS.approve);
      await payByKeyboard(page);
      await page.waitForSelector('#errors:not([hidden])');
      expect(await page.textContent('#errors')).toMatch(/limit/i);
      expect(await page.isEnabled('#pay')).toBe(true);
    } finally {
      await context.close();
    }
    expect(await findReservationById(t.database.db, reservation)).toMatchObject({ used: false });
  });

  it('without redirect URLs, the receipt stays on the page and tells the buyer where to go', async () => {
    const { url } = await checkoutLink(
      t,
      partner,
      purchase({ redirectUrl: undefined, failureRedirectUrl: undefined }),
    );
    const { context, page } = await openSession(SCREENS[1][1]);
    try {
      await page.goto(url);
      expect(await page.$('#cancel')).toBeNull();
      await typeCard(page, CARDS.approve);
      await payByKeyboard(page);
      await waitForStatus(page, 'Purchase complete.');
      expect(await page.isVisible('#back')).toBe(false);
      expect(await page.textContent('#progress-detail')).toBe(
        'Return to the site you came from to start a new purchase.',
      );
      expect(new URL(page.url()).pathname).toBe('/purchase');
    } finally {
      await context.close();
    }
  });
});
