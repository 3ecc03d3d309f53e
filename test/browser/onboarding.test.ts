import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asUser,
  createUser,
  readUser,
  startUsersApp,
  TRANSFER_FIELDS,
  type UsersFixture,
} from '../users/support.ts';
import { launchChromium } from './support.ts';

/**
 * The hosted KYC onboarding page in a real headless Chromium (Debian's /usr/bin/chromium; no
 * tool downloads a browser of its own): what a person sees, the simulated identity check, and
 * that user-controlled values are shown as text, never run as markup.
 */

let f: UsersFixture;
let browser: Browser;

beforeAll(async () => {
  f = await startUsersApp();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await f?.t.close();
});

async function pageUrl(userId: string): Promise<string> {
  const response = await asUser(f.t, f.partner, userId, 'GET', `/v3/users/${userId}/onboarding`);
  const { verificationLinkUrl } = (await response.json()) as { verificationLinkUrl: string };
  // The link names the configured public URL; the test server listens on a random loopback port.
  return `${f.t.baseUrl}${new URL(verificationLinkUrl).pathname}`;
}

describe('hosted onboarding page', () => {
  it('lists what is needed and completes the simulated identity check with one click', async () => {
    const user = await createUser(f.t, f.partner, {
      fields: { firstName: 'Ada', lastName: 'Lovelace' },
      scopes: ['TRANSFER', 'DEBIT_CARD_L2'],
    });
    const page = await browser.newPage();
    try {
      await page.goto(await pageUrl(user.id));
      expect(await page.title()).toBe('Identity verification');
      expect(await page.textContent('#first-name')).toBe('Ada');
      const items = await page.$$eval('#requirements li', (lis) =>
        lis.map((li) => [li.getAttribute('data-field'), li.querySelector('.status')?.textContent]),
      );
      expect(items).toEqual([
        ['firstName', 'provided'],
        ['lastName', 'provided'],
        ['residenceAddress', 'still needed'],
        ['dateOfBirth', 'still needed'],
        ['identityCheck', 'still needed'],
      ]);
      await Promise.all([page.waitForURL(/\/onboarding\//), page.click('#submit-check')]);
      // The identity check is done, but two fields are still OPEN: not "complete".
      expect(await page.textContent('#outcome')).toBe(
        'Identity check passed. Still needed: Residence address, Date of birth.',
      );
      expect(await page.textContent('[data-field="identityCheck"] .status')).toBe('done');
      const scopes = await page.$$eval('#scopes li', (lis) =>
        lis.map((li) => [li.getAttribute('data-scope'), li.querySelector('.status')?.textContent]),
      );
      expect(scopes).toEqual([
        ['TRANSFER', 'still needs Residence address, Date of birth'],
        ['DEBIT_CARD_L2', 'still needs Residence address, Date of birth'],
      ]);
    } finally {
      await page.close();
    }
    const read = await readUser(f.t, f.partner, user.id, 'DEBIT_CARD_L2');
    expect(read.scopes.DEBIT_CARD_L2).toMatchObject({
      onboardingStatus: 'COMPLETE',
      onboardingRequired: false,
    });
    // TRANSFER data still missing: DEBIT_CARD_L2 stays OPEN until it is submitted.
    expect(read.scopes.DEBIT_CARD_L2?.status).toBe('OPEN');
    const done = await asUser(f.t, f.partner, user.id, 'POST', `/v3/users/${user.id}`, {
      fields: {
        dateOfBirth: TRANSFER_FIELDS.dateOfBirth,
        residenceAddress: TRANSFER_FIELDS.residenceAddress,
      },
    });
    expect(((await done.json()) as { status: string }).status).toBe('APPROVED');
    const again = await browser.newPage();
    try {
      await again.goto(await pageUrl(user.id));
      expect(await again.textContent('#outcome')).toBe('Identity verification complete.');
      expect(await again.$$eval('#scopes .status', (spans) => spans.map((s) => s.textContent))).toEqual([
        'approved',
        'approved',
      ]);
    } finally {
      await again.close();
    }
  });

  it('shows an injection attempt in a field value as text: no element, no script', async () => {
    const hostile = `<img src=x id=pwned onerror="document.title='pwned'"><script>document.title='pwned'</script>"'&`;
    const user = await createUser(f.t, f.partner, { fields: { firstName: hostile } });
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      const response = await page.goto(await pageUrl(user.id));
      const source = (await response?.text()) ?? '';
      expect(source).not.toContain('<script>');
      expect(source).toContain('&lt;img src=x id=pwned');
      expect(await page.textContent('#first-name')).toBe(hostile.trim());
      expect(await page.$('#pwned')).toBeNull();
      // Only our own script file, nothing inline.
      expect(await page.$$eval('script', (scripts) => scripts.map((s) => s.getAttribute('src')))).toEqual([
        '/purchase/assets/onboarding.js',
      ]);
      expect(await page.title()).toBe('Identity verification');
      expect(dialogs).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('a broken link shows an HTML error page, not JSON', async () => {
    const page = await browser.newPage();
    try {
      const response = await page.goto(`${f.t.baseUrl}/onboarding/not-a-real-token`);
      expect(response?.status()).toBe(404);
      expect(await page.textContent('h1')).toBe('Link not valid');
    } finally {
      await page.close();
    }
  });
});
