import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerChainSettlers } from '../../src/chains/port.ts';
import { JobRunner } from '../../src/platform/jobs/runner.ts';
import { registerWalletOrderJobs } from '../../src/wallet-orders/worker.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { ETH_ADDRESS } from '../orders/support.ts';
import { setLimits } from '../wallet-orders/support.ts';
import { expectAccessible, launchChromium, SCREENS, screenshot, tabTo } from './support.ts';

/**
 * The partner dashboard in a real headless Chromium, desktop and phone: sign in, orders, a new
 * key (its secret shown once) and its revocation, a sandbox test purchase paid on the hosted
 * checkout, and the order it made in the list. On the desktop the dashboard is driven by the
 * keyboard alone. axe-core passes every page; nothing breaks the CSP (no inline script or style).
 */

let t: TestApp;
let partner: PartnerCredentials;
let browser: Browser;
let jobs: JobRunner;

beforeAll(async () => {
  t = await startTestApp({ env: { RAMPART_SANDBOX_CHAIN_DELAY_MS: '0' } });
  partner = await createPartner(t, { name: 'Acme Wallet' });
  await setLimits(t, partner.accountId, {
    STANDARD: { daily: '100000', weekly: '100000', yearly: '100000' },
  });
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

function watch(page: Page) {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text()))
      problems.push(message.text());
  });
  return problems;
}

/** Follows a link or presses a button: by the keyboard (Tab to it, Enter) or by a tap. */
async function activate(page: Page, id: string, keyboard: boolean) {
  if (keyboard) {
    await tabTo(page, id);
    await page.keyboard.press('Enter');
  } else {
    await page.click(`#${id}`);
  }
}

async function typeInto(page: Page, id: string, text: string, keyboard: boolean) {
  if (keyboard) {
    await tabTo(page, id);
    await page.keyboard.type(text);
  } else {
    await page.fill(`#${id}`, text);
  }
}

async function checkPage(page: Page, screen: string, name: string, title: string) {
  await page.waitForLoadState('load');
  expect(await page.title()).toBe(`${title} · Rampart dashboard`);
  await expectAccessible(page, `${screen} ${name}`);
}

describe.each(SCREENS)('partner dashboard on %s', (screen, options) => {
  it('sign in → orders → create a key → revoke it → test purchase on the hosted checkout → the order', async () => {
    const keyboard = screen === 'desktop';
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems = watch(page);
    try {
      await page.goto(`${t.baseUrl}/dashboard`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
      await checkPage(page, screen, 'sign-in', 'Sign in');
      await screenshot(page, `dashboard-sign-in-${screen}`);
      await typeInto(page, 'api-key', partner.apiKey, keyboard);
      await typeInto(page, 'secret', partner.secretKey, keyboard);
      await Promise.all([page.waitForURL(/\/dashboard\/orders$/), activate(page, 'sign-in', keyboard)]);
      // Nothing of the secret is left in the browser: not in a cookie script can read, not in storage.
      const stored = await page.evaluate(
        () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
      );
      expect(stored).not.toContain(partner.secretKey);
      const cookies = await context.cookies();
      expect(cookies.map((cookie) => [cookie.name, cookie.path, cookie.httpOnly, cookie.sameSite])).toEqual([
        ['rampart_dashboard', '/dashboard', true, 'Strict'],
      ]);
      expect(JSON.stringify(cookies)).not.toContain(partner.secretKey);
      await checkPage(page, screen, 'orders (empty)', 'Orders');
      expect(await page.textContent('#account-name')).toBe('Acme Wallet');

      // A key: created, its secret shown once, then revoked.
      await Promise.all([page.waitForURL(/api-keys$/), activate(page, 'nav-api-keys', keyboard)]);
      await checkPage(page, screen, 'api keys', 'API keys');
      await typeInto(page, 'key-desc', `${screen} reporting`, keyboard);
      await Promise.all([page.waitForSelector('#new-key'), activate(page, 'create-key', keyboard)]);
      await checkPage(page, screen, 'new key', 'API keys');
      const apiKey = (await page.textContent('#new-api-key'))!;
      const secret = (await page.textContent('#new-secret'))!;
      expect(secret).toMatch(/^SK-/);
      await screenshot(page, `dashboard-api-keys-${screen}`);
      // The revocation's answer is the list again, without the new key's secret.
      await Promise.all([
        page.waitForSelector('#new-key', { state: 'detached' }),
        activate(page, `revoke-${apiKey}`, keyboard),
      ]);
      await page.waitForLoadState('load');
      expect(await page.content()).not.toContain(secret);
      const row = page.locator('tr', { has: page.locator(`code:text-is("${apiKey}")`) });
      expect(await row.locator('.status').textContent()).toBe('REVOKED');
      await checkPage(page, screen, 'revoked key', 'API keys');

      // The test purchase: a reservation through the orders service, paid on the hosted checkout.
      await Promise.all([page.waitForURL(/test-purchase$/), activate(page, 'nav-test-purchase', keyboard)]);
      await checkPage(page, screen, 'test purchase', 'Test purchase');
      await typeInto(page, 'p-dest', `ethereum:${ETH_ADDRESS}`, keyboard);
      await Promise.all([page.waitForSelector('#reservation'), activate(page, 'reserve', keyboard)]);
      await checkPage(page, screen, 'reservation', 'Test purchase');
      await screenshot(page, `dashboard-test-purchase-${screen}`);
      const link = new URL((await page.getAttribute('#open-checkout', 'href'))!);
      expect(link.pathname).toBe('/purchase');
      await page.goto(`${t.baseUrl}${link.pathname}${link.search}`);
      for (const [field, value] of Object.entries({
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        phone: '+14155550100',
        street1: `1 ${screen} St`,
        city: 'San Francisco',
        state: 'CA',
        postalCode: '94105',
      })) {
        await page.fill(`#f-${field}`, value);
      }
      await page.fill('#f-card-number', '4111111111111111');
      await page.fill('#f-card-expiry', '1230');
      await page.fill('#f-card-cvv', '123');
      await page.click('#pay');
      await page.waitForFunction(
        () => document.getElementById('progress-status')?.textContent === 'Purchase complete.',
        undefined,
        { timeout: 30_000 },
      );
      const orderId = (await page.textContent('#r-order'))!;
      expect(orderId).toMatch(/^WO_/);

      // Back in the dashboard: the order in the list, then its page.
      await page.goto(`${t.baseUrl}/dashboard/orders`);
      await checkPage(page, screen, 'orders', 'Orders');
      expect(await page.textContent(`a[href="/dashboard/orders/${orderId}"]`)).toBe(orderId);
      await screenshot(page, `dashboard-orders-${screen}`);
      await Promise.all([
        page.waitForURL(new RegExp(`/orders/${orderId}$`)),
        activate(page, `order-${orderId}`, keyboard),
      ]);
      await checkPage(page, screen, 'order', `Order ${orderId}`);
      expect(await page.textContent('#order-id')).toBe(orderId);
      await screenshot(page, `dashboard-order-${screen}`);

      // Every other page of the nav passes axe too.
      for (const [nav, title] of [
        ['transfers', 'Transfers'],
        ['users', 'Users'],
        ['balances', 'Balances'],
        ['callbacks', 'Callback deliveries'],
        ['webhook-secret', 'Webhook signing secret'],
      ] as const) {
        await Promise.all([page.waitForURL(new RegExp(`/${nav}$`)), activate(page, `nav-${nav}`, keyboard)]);
        await checkPage(page, screen, nav, title);
        if (nav === 'balances' || nav === 'webhook-secret')
          await screenshot(page, `dashboard-${nav}-${screen}`);
      }
      await Promise.all([page.waitForURL(/sign-in$/), activate(page, 'sign-out', keyboard)]);
      expect(await context.cookies()).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
