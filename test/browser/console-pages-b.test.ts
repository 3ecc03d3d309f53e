import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInRoute } from '../console/support-b.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { expectAccessible, launchChromium, SCREENS, screenshot, tabTo } from './support.ts';

/**
 * The console's partner, audit, ledger and reconciliation pages in headless Chromium, at desktop
 * and phone sizes: an admin changes a card limit and creates and revokes a key, filters the audit
 * log, reads balances and runs the card reconciliation; axe finds nothing serious on any page,
 * and one pass is driven by the keyboard alone.
 */
let t: TestApp;
let partner: PartnerCredentials;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp({ extend: signInRoute });
  partner = await createPartner(t, { name: 'Console Browser Partner' });
  await fetch(`${t.baseUrl}/operator/v1/ledger/credits`, {
    method: 'POST',
    headers: operatorHeaders(),
    body: JSON.stringify({ owner: `account:${partner.accountId}`, currency: 'USD', amount: '250' }),
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const step = (what: string) => {
  if (process.env.DEBUG_B) console.log(new Date().toISOString(), what);
};

async function signedIn(options: object): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  const answer = await context.request.post(`${t.baseUrl}/console/test-sign-in?role=admin`);
  expect(answer.status()).toBe(204);
  return { context, page: await context.newPage() };
}

describe('console pages in Chromium', () => {
  for (const [screen, options] of SCREENS) {
    it(`changes a limit, creates and revokes a key, filters the audit log, reads the ledger and reconciles (${screen})`, async () => {
      const { context, page } = await signedIn(options);
      try {
        const partnerUrl = `${t.baseUrl}/console/partners/${partner.accountId}`;
        await page.goto(partnerUrl);
        expect(await page.title()).toContain('Console Browser Partner');
        await expectAccessible(page, `partner ${screen}`);
        step(`${page.url()}`);

        await page.fill('#limit-STANDARD-daily', '200');
        await page.fill('#limit-STANDARD-weekly', '800');
        await page.fill('#limit-STANDARD-yearly', '9000');
        await Promise.all([page.waitForURL(/done=card-limits/), page.click('text=Save card limits')]);
        expect(await page.textContent('[role="status"]')).toContain('card limits are saved');
        expect(await page.content()).toContain('800 USD');

        await page.fill('#key-desc', `browser ${screen}`);
        await Promise.all([page.waitForLoadState(), page.click('text=Create an API key')]);
        const apiKey = (await page.textContent('#new-api-key'))!.trim();
        expect((await page.textContent('#new-secret-key'))!.length).toBeGreaterThan(20);
        await expectAccessible(page, `new key ${screen}`);
        step(`${page.url()}`);
        if (screen === 'desktop') await screenshot(page, 'console-partner');
        await page.goto(partnerUrl);
        expect(await page.$('#new-secret-key')).toBeNull();
        await Promise.all([page.waitForURL(/done=revoked/), page.click(`text=Revoke ${apiKey}`)]);
        expect(await page.content()).not.toContain(apiKey);

        await page.goto(`${t.baseUrl}/console/audit`);
        await page.fill('#audit-target', `account:${partner.accountId}`);
        await Promise.all([page.waitForURL(/target=/), page.click('button:has-text("Filter")')]);
        const actions = await page.$$eval('tbody tr td:nth-child(3)', (cells) =>
          cells.map((c) => c.textContent),
        );
        expect(actions).toContain('POST /console/partners/:accountId/keys/:apiKey/revoke');
        expect(actions).toContain('POST /console/partners/:accountId/card-limits');
        await expectAccessible(page, `audit ${screen}`);
        step(`${page.url()}`);
        if (screen === 'desktop') await screenshot(page, 'console-audit');

        await page.goto(`${t.baseUrl}/console/ledger`);
        expect(await page.content()).toContain(`account:${partner.accountId}`);
        expect(await page.content()).toContain('external:bank');
        await expectAccessible(page, `ledger ${screen}`);
        step(`${page.url()}`);
        if (screen === 'desktop') await screenshot(page, 'console-ledger');

        await page.goto(`${t.baseUrl}/console/reconciliation`);
        await Promise.all([page.waitForLoadState(), page.click('text=Reconcile card money')]);
        expect(await page.textContent('#cards-verdict')).toContain('balanced');
        await expectAccessible(page, `reconciliation ${screen}`);
        step(`${page.url()}`);
        if (screen === 'desktop') await screenshot(page, 'console-reconciliation');

        for (const path of [
          '/console/partners',
          '/console/settings',
          '/console/disputes',
          '/console/orders',
        ]) {
          await page.goto(`${t.baseUrl}${path}`);
          await expectAccessible(page, `${path} ${screen}`);
          step(`${page.url()}`);
        }
      } finally {
        await context.close();
      }
    }, 150_000);
  }

  it('changes a card limit with the keyboard alone', async () => {
    const { context, page } = await signedIn(SCREENS[0][1]);
    try {
      await page.goto(`${t.baseUrl}/console/partners/${partner.accountId}`);
      await tabTo(page, 'limit-DEBIT_CARD_L2-daily');
      await page.keyboard.type('300');
      await page.keyboard.press('Tab');
      await page.keyboard.type('1000');
      await page.keyboard.press('Tab');
      await page.keyboard.type('20000');
      await Promise.all([page.waitForURL(/done=card-limits/), page.keyboard.press('Enter')]);
      expect(await page.content()).toContain('1000 USD');
    } finally {
      await context.close();
    }
  }, 60_000);
});
