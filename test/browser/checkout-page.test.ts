import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, checkoutBody, checkoutLink } from '../checkout/support.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { launchChromium, PHONE } from './support.ts';

/**
 * The hosted checkout page in a real headless Chromium (Debian's /usr/bin/chromium), before any
 * card is charged: what a buyer sees on a phone, the amount picker of an unlocked reservation,
 * keyboard use, and what happens when the link runs out. The order flows are in checkout-flow.test.ts.
 */

let t: TestApp;
let partner: PartnerCredentials;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A phone-sized page that records CSP violations, script errors and requests to other origins. */
async function phonePage() {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('request', (request) => {
    if (!request.url().startsWith(t.baseUrl)) problems.push(`request to ${request.url()}`);
  });
  return { page, problems, close: () => context.close() };
}

async function noHorizontalScroll(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

describe('hosted checkout page in Chromium', () => {
  it('shows the locked quote on a 375×667 screen without sideways scrolling or CSP violations', async () => {
    const { url } = await checkoutLink(t, partner, checkoutBody(partner));
    const { page, problems, close } = await phonePage();
    try {
      await page.goto(url);
      expect(await page.title()).toBe('Checkout');
      expect(await page.textContent('#quote-source-amount')).toMatch(/^\d+\.\d{2} USD$/);
      expect(await page.textContent('#quote-dest-amount')).toMatch(/^[\d.]+ ETH$/);
      expect(await page.textContent('#quote-rate')).toMatch(/^1 USD = [\d.]+ ETH$/);
      expect(await page.textContent('#countdown')).toMatch(/^1[45]:\d\d$/);
      expect(await page.inputValue('#f-firstName')).toBe('Ada');
      expect(await page.inputValue('#f-country')).toBe('US');
      // The stylesheet applied (our own file): inputs fill the width, nothing overflows.
      expect(await noHorizontalScroll(page)).toBe(true);
      const pay = await page.$('#pay');
      await pay?.scrollIntoViewIfNeeded();
      const box = await pay?.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 375).toBe(true);
      expect(await page.textContent('#pay')).toMatch(/^Pay \d+\.\d{2} USD$/);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('every form control has a label, and the card fields say what they are for', async () => {
    const { url } = await checkoutLink(t, partner, checkoutBody(partner));
    const { page, close } = await phonePage();
    try {
      await page.goto(url);
      const unlabelled = await page.$$eval('input, select', (controls) =>
        controls
          .filter((control) => !control.closest('[hidden]'))
          .filter((control) => (control as HTMLInputElement).labels?.length !== 1)
          .map((control) => control.id),
      );
      expect(unlabelled).toEqual([]);
      const card = await page.$eval('#f-card-number', (input) => ({
        name: input.getAttribute('name'),
        autocomplete: input.getAttribute('autocomplete'),
        inputmode: input.getAttribute('inputmode'),
      }));
      expect(card).toEqual({ name: null, autocomplete: 'cc-number', inputmode: 'numeric' });
    } finally {
      await close();
    }
  });

  it('reports missing card details next to the fields and in a focused summary, sending nothing', async () => {
    const { url } = await checkoutLink(t, partner, checkoutBody(partner));
    const { page, close } = await phonePage();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    try {
      await page.goto(url);
      await page.fill('#f-card-number', '4111 1111');
      // MM/YY and MM/YYYY are both taken; month 13 is neither.
      await page.fill('#f-card-expiry', '13/30');
      await page.focus('#pay');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#errors:not([hidden])');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('errors');
      expect(await page.getAttribute('#f-card-number', 'aria-invalid')).toBe('true');
      expect(await page.textContent('#f-card-number-error')).toContain('13 to 19 digits');
      expect(await page.textContent('#f-card-expiry-error')).toBe(
        'Enter the expiry date as MM/YY, for example 04/30.',
      );
      expect(await page.textContent('#f-card-cvv-error')).toContain('is needed');
      // The summary links take the keyboard to the field.
      await page.click('#errors a[href="#f-card-expiry"]');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-card-expiry');
      expect(posts).toEqual([]);
    } finally {
      await close();
    }
  });

  it('prices the amount the buyer picks on an unlocked reservation, keeping locked fields read-only', async () => {
    const { url } = await checkoutLink(t, partner, {
      amount: '50',
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      referrerAccountId: partner.accountId,
      country: 'US',
      lockFields: ['sourceCurrency'],
    });
    const { page, problems, close } = await phonePage();
    try {
      await page.goto(url);
      // The reservation's amount is priced as soon as the page loads.
      await page.waitForSelector('#quote:not([hidden])');
      expect(await page.textContent('#pay')).toMatch(/^Pay 5\d\.\d{2} USD$/);
      expect(await page.getAttribute('#f-sourceCurrency', 'readonly')).not.toBeNull();
      await page.fill('#f-amount', '120');
      await page.keyboard.press('Tab');
      await page.waitForFunction(() =>
        /^Pay 12\d\.\d{2} USD$/.test(document.getElementById('pay')?.textContent ?? ''),
      );
      expect(await page.textContent('#quote-source-amount')).toMatch(/^12\d\.\d{2} USD$/);
      await page.fill('#f-amount', '1');
      await page.keyboard.press('Tab');
      await page.waitForSelector('#errors:not([hidden])');
      expect(await page.textContent('#f-amount-error')).toMatch(/small|minimum/i);
      expect(problems.filter((problem) => !problem.includes('400'))).toEqual([]);
    } finally {
      await close();
    }
  });

  it('an expired link is an HTML page; a link expiring while open disables paying', async () => {
    const stale = await checkoutLink(t, partner, checkoutBody(partner));
    const open = await checkoutLink(t, partner, checkoutBody(partner));
    const { page, close } = await phonePage();
    try {
      // Two seconds of the 15 minutes left when the page loads.
      await advanceClock(t, 15 * 60 - 2);
      await page.goto(open.url);
      await page.waitForSelector('#errors:not([hidden])', { timeout: 10_000 });
      expect(await page.textContent('#errors')).toContain('expired');
      expect(await page.isDisabled('#pay')).toBe(true);
      await advanceClock(t, 5);
      const response = await page.goto(stale.url);
      expect(response?.status()).toBe(410);
      expect(await page.textContent('h1')).toBe('This checkout link has expired');
      expect(await page.textContent('#error-message')).toContain('Nothing was charged');
      // The way back to the partner's page stays.
      expect(await page.getAttribute('#back', 'href')).toBe('https://merchant.example/failed');
    } finally {
      await close();
    }
  });
});
