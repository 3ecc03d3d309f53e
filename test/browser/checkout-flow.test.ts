import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerChainSettlers } from '../../src/chains/port.ts';
import { findReservationById } from '../../src/orders/store.ts';
import { JobRunner } from '../../src/platform/jobs/runner.ts';
import { Money } from '../../src/platform/money.ts';
import { registerWalletOrderJobs } from '../../src/wallet-orders/worker.ts';
import { checkoutBody, checkoutLink, expectCardsNowhere } from '../checkout/support.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { launchChromium, PHONE } from './support.ts';

/**
 * Whole purchases through the hosted checkout in a real headless Chromium, against the real
 * order service, sandbox card processor, limits and sandbox chain, with a real job runner moving
 * orders: success (on a phone, keyboard only), decline, SMS/CARD2FA codes, 3-D Secure both ways,
 * and a limit reached. The merchant's site is answered by the browser itself (route), so the
 * redirect and its query can be read without leaving the machine.
 */

const CARDS = {
  approve: '4111111111111111',
  decline: '4000000000000002',
  codes: '4000000000001018',
  threeDs: '4000000000003220',
};
const SANDBOX_CODE = '000000';

let t: TestApp;
let partner: PartnerCredentials;
let browser: Browser;
let jobs: JobRunner;
let addressCounter = 0;

beforeAll(async () => {
  t = await startTestApp({ env: { RAMPART_SANDBOX_CHAIN_DELAY_MS: '0' } });
  partner = await createPartner(t);
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

async function openSession(options: { phone?: boolean } = {}): Promise<Session> {
  const context = await browser.newContext(options.phone ? PHONE : {});
  // The merchant's pages, answered inside the browser.
  await context.route('https://merchant.example/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Merchant</title>' }),
  );
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      problems.push(message.text());
  });
  return { context, page, problems };
}

async function fillCard(page: Page, number: string) {
  await page.fill('#f-card-number', number);
  await page.fill('#f-card-expiry', '12/2030');
  await page.fill('#f-card-cvv', '123');
}

async function readOrder(orderId: string) {
  const response = await signedFetch(t, partner, { path: `/v3/orders/${orderId}` });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as Record<string, unknown>;
}

/** An amount of GET /v3/orders/{id} exactly as written on the wire (a JS number could round it). */
async function exactAmounts(orderId: string) {
  const text = await (await signedFetch(t, partner, { path: `/v3/orders/${orderId}` })).text();
  const field = (name: string) => new Money(new RegExp(`"${name}":([0-9.]+)`).exec(text)![1]!);
  return {
    sourceAmount: field('sourceAmount'),
    purchaseAmount: field('purchaseAmount'),
    destAmount: field('destAmount'),
  };
}

function merchantQuery(page: Page) {
  return Object.fromEntries(new URL(page.url()).searchParams);
}

describe('hosted checkout purchases in Chromium', () => {
  it('completes on a phone screen with the keyboard alone and returns to the merchant with API.md’s values', async () => {
    const { url, reservation } = await checkoutLink(t, partner, purchase());
    const { context, page, problems } = await openSession({ phone: true });
    try {
      await page.goto(url);
      const total = (await page.textContent('#quote-source-amount'))!;
      // Keyboard only: Tab to each card field, type, Tab on to Pay and press Enter.
      await tabTo(page, 'f-card-number');
      await page.keyboard.type(CARDS.approve);
      await page.keyboard.press('Tab');
      await page.keyboard.type('12/2030');
      await page.keyboard.press('Tab');
      await page.keyboard.type('123');
      await tabTo(page, 'pay');
      await page.keyboard.press('Enter');
      await page.waitForURL(/^https:\/\/merchant\.example\/done/, { timeout: 30_000 });
      const query = merchantQuery(page);
      expect(query.session).toBe('42');
      expect(query.accountId).toBe(partner.accountId);
      const order = await readOrder(query.orderId!);
      expect(order).toMatchObject({
        status: 'COMPLETE',
        reservationId: reservation,
        transferId: query.transferId,
      });
      expect(query.transferId).toMatch(/^TF_/);
      expect(query.dest).toBe(order.dest);
      const exact = await exactAmounts(query.orderId!);
      expect(new Money(query.destAmount!).eq(exact.destAmount)).toBe(true);
      expect(new Money(total.replace(' USD', '')).eq(exact.sourceAmount)).toBe(true);
      expect(new Money(query.fees!).eq(exact.sourceAmount.minus(exact.purchaseAmount))).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
    await expectCardsNowhere(t, [CARDS.approve]);
  });

  it('shows a decline next to the card, keeps the reservation, and succeeds with another card', async () => {
    const { url } = await checkoutLink(t, partner, purchase());
    const { context, page } = await openSession();
    try {
      await page.goto(url);
      await fillCard(page, CARDS.decline);
      await page.click('#pay');
      await page.waitForSelector('#errors:not([hidden])');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('errors');
      expect(await page.textContent('#errors')).toMatch(/honor|declined/i);
      expect(await page.isVisible('#checkout-form')).toBe(true);
      await fillCard(page, CARDS.approve);
      await page.click('#pay');
      await page.waitForURL(/^https:\/\/merchant\.example\/done/, { timeout: 30_000 });
      expect((await readOrder(merchantQuery(page).orderId!)).status).toBe('COMPLETE');
    } finally {
      await context.close();
    }
  });

  it('asks for the SMS and card codes, reports a wrong one, and completes with the right ones', async () => {
    const { url } = await checkoutLink(t, partner, purchase());
    const { context, page } = await openSession();
    try {
      await page.goto(url);
      await fillCard(page, CARDS.codes);
      await page.click('#pay');
      await page.waitForSelector('#codes:not([hidden])', { timeout: 15_000 });
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('codes-heading');
      expect(await page.isVisible('#f-sms')).toBe(true);
      expect(await page.isVisible('#f-card2fa')).toBe(true);
      await page.fill('#f-sms', '123456');
      await page.fill('#f-card2fa', SANDBOX_CODE);
      await page.click('#submit-codes');
      await page.waitForSelector('#errors:not([hidden])');
      expect(await page.textContent('#errors')).toMatch(/code/i);
      await page.fill('#f-sms', SANDBOX_CODE);
      await page.click('#submit-codes');
      await page.waitForURL(/^https:\/\/merchant\.example\/done/, { timeout: 30_000 });
      expect((await readOrder(merchantQuery(page).orderId!)).status).toBe('COMPLETE');
    } finally {
      await context.close();
    }
  });

  it('goes through the issuer’s 3-D Secure page and back, then to the merchant', async () => {
    const { url } = await checkoutLink(t, partner, purchase());
    const { context, page, problems } = await openSession();
    try {
      await page.goto(url);
      await fillCard(page, CARDS.threeDs);
      await page.click('#pay');
      await page.waitForURL(/\/sandbox\/3ds\//, { timeout: 15_000 });
      await page.click('#approve');
      await page.waitForURL(/\/purchase\?.*order=WO_/);
      // Back on our page, which follows the order to its end.
      await page.waitForURL(/^https:\/\/merchant\.example\/done/, { timeout: 30_000 });
      expect((await readOrder(merchantQuery(page).orderId!)).status).toBe('COMPLETE');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a declined 3-D Secure fails the order and sends the buyer to failureRedirectUrl', async () => {
    const { url } = await checkoutLink(t, partner, purchase());
    const { context, page } = await openSession();
    try {
      await page.goto(url);
      await fillCard(page, CARDS.threeDs);
      await page.click('#pay');
      await page.waitForURL(/\/sandbox\/3ds\//, { timeout: 15_000 });
      await page.click('#decline');
      await page.waitForURL(/^https:\/\/merchant\.example\/failed/, { timeout: 30_000 });
      const { orderId } = merchantQuery(page);
      expect((await readOrder(orderId!)).status).toBe('FAILED');
    } finally {
      await context.close();
    }
  });

  it('refuses an order above the daily limit, saying so, without charging', async () => {
    const { url, reservation } = await checkoutLink(t, partner, purchase({ sourceAmount: '600' }));
    const { context, page } = await openSession();
    try {
      await page.goto(url);
      await fillCard(page, CARDS.approve);
      await page.click('#pay');
      await page.waitForSelector('#errors:not([hidden])');
      expect(await page.textContent('#errors')).toMatch(/limit/i);
      expect(await page.isEnabled('#pay')).toBe(true);
    } finally {
      await context.close();
    }
    expect(await findReservationById(t.database.db, reservation)).toMatchObject({ used: false });
  });

  it('stays on the page with the outcome when the reservation has no redirect URLs', async () => {
    const { url } = await checkoutLink(
      t,
      partner,
      purchase({ redirectUrl: undefined, failureRedirectUrl: undefined }),
    );
    const { context, page } = await openSession();
    try {
      await page.goto(url);
      expect(await page.$('#cancel')).toBeNull();
      await fillCard(page, CARDS.approve);
      await page.click('#pay');
      await page.waitForFunction(
        () => document.getElementById('progress-status')?.textContent === 'Purchase complete.',
        undefined,
        { timeout: 30_000 },
      );
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('progress-heading');
      expect(await page.inputValue('#f-card-number')).toBe('');
      expect(new URL(page.url()).pathname).toBe('/purchase');
    } finally {
      await context.close();
    }
  });
});

/** Presses Tab until the element with this id has focus (the page has a fixed, finite order). */
async function tabTo(page: Page, id: string) {
  for (let presses = 0; presses < 60; presses += 1) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached #${id}`);
}
