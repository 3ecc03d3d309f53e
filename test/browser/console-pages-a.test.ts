import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONSOLE_TEST_ENV,
  type ConsoleData,
  insertDelivery,
  pendingUserWithDocument,
  seedConsoleData,
} from '../console/pages-fixture.ts';
import { sessionProbe } from '../console/pages-support.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { solidPng } from './images.ts';
import { expectAccessible, launchChromium, SCREENS, screenshot, tabTo } from './support.ts';

/**
 * The console's support pages in a real headless Chromium at desktop and phone sizes: search to
 * an order's timeline, a KYC review approved with the passport photo shown, a failed callback
 * resent. Every page passes axe; on the desktop the whole way is driven by keyboard alone.
 */

let t: TestApp;
let data: ConsoleData;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp({ env: CONSOLE_TEST_ENV, extend: sessionProbe });
  data = await seedConsoleData(t);
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signedInPage(
  options: object,
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext(options);
  const response = await context.request.post(`${t.baseUrl}/console/test-session?role=admin`);
  expect(response.status()).toBe(204);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  return { context, page, problems };
}

/** Presses Tab until the focused element matches `selector` (the page's order is finite). */
async function tabToSelector(page: Page, selector: string) {
  for (let presses = 0; presses < 120; presses += 1) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

async function follow(page: Page, selector: string, keyboard: boolean) {
  if (keyboard) {
    await tabToSelector(page, selector);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  } else {
    await Promise.all([page.waitForNavigation(), page.click(selector)]);
  }
}

describe.each(SCREENS)('console support pages on %s', (screen, options) => {
  const keyboard = screen === 'desktop';
  // The guides show the desktop screens.
  const shot = (page: Page, name: string) => (screen === 'desktop' ? screenshot(page, name) : undefined);

  it('searches an order id and reads its whole timeline', async () => {
    const { context, page, problems } = await signedInPage(options);
    try {
      await page.goto(`${t.baseUrl}/console/search`);
      await expectAccessible(page, `${screen} search`);
      if (keyboard) {
        await tabTo(page, 'q');
        await page.keyboard.type(data.orderId);
        await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      } else {
        await page.fill('#q', data.orderId);
        await Promise.all([page.waitForNavigation(), page.click('button[type=submit] >> text=Search')]);
      }
      expect(await page.textContent('main')).toContain('1 found for');
      await expectAccessible(page, `${screen} search results`);
      await shot(page, 'console-search');
      await follow(page, `main a[href="/console/orders/${data.orderId}"]`, keyboard);
      expect(page.url()).toBe(`${t.baseUrl}/console/orders/${data.orderId}`);
      const main = (await page.textContent('main')) ?? '';
      for (const part of [
        'Status history',
        'Card payment',
        'Ledger entries',
        'order.capture',
        'Callbacks sent',
        'HTTP 500',
      ])
        expect(main).toContain(part);
      await expectAccessible(page, `${screen} order`);
      await shot(page, 'console-order');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('approves a KYC review with the document shown', async () => {
    const { userId } = await pendingUserWithDocument(
      t,
      data.partner,
      `${screen}@example.com`,
      solidPng(320, 200, [40, 90, 160]),
    );
    const { context, page, problems } = await signedInPage(options);
    try {
      await page.goto(`${t.baseUrl}/console/reviews`);
      await expectAccessible(page, `${screen} review queue`);
      await follow(page, `main a[href="/console/reviews/${userId}"]`, keyboard);
      const width = await page.$eval('main img', (img) => (img as HTMLImageElement).naturalWidth);
      expect(width).toBe(320);
      await expectAccessible(page, `${screen} review`);
      await shot(page, 'console-review');
      await follow(page, '#TRANSFER-approve', keyboard);
      expect(await page.textContent('[role=status]')).toContain('Approved.');
      await expectAccessible(page, `${screen} review done`);
      const { rows } = await t.database.db.query<{ status: string }>(
        `SELECT status FROM user_scopes WHERE user_id = $1 AND scope = 'TRANSFER'`,
        [userId],
      );
      expect(rows[0]!.status).toBe('APPROVED');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('lists callbacks failed first and resends one', async () => {
    for (let i = 0; i < 4; i += 1)
      await insertDelivery(
        t,
        data.partner.accountId,
        `transfer:${data.transferId}`,
        'DELIVERED',
        new Date(Date.now() - i * 60_000),
      );
    await t.database.db.query(`UPDATE callback_deliveries SET status = 'FAILED' WHERE id = $1`, [
      data.failedDeliveryId,
    ]);
    const { context, page, problems } = await signedInPage(options);
    try {
      await page.goto(`${t.baseUrl}/console/callbacks`);
      await expectAccessible(page, `${screen} callbacks`);
      await shot(page, 'console-callbacks');
      const first = await page.$eval('main tbody tr td a', (a) => a.textContent);
      expect(first).toBe(data.failedDeliveryId);
      await follow(page, `main a[href="/console/callbacks/${data.failedDeliveryId}"]`, keyboard);
      await expectAccessible(page, `${screen} callback`);
      await follow(page, '#resend', keyboard);
      expect(await page.textContent('[role=status]')).toContain('Queued again.');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
