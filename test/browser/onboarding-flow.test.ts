import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createUser, readUser, startUsersApp, type UsersFixture } from '../users/support.ts';
import { solidPng } from './images.ts';
import { expectAccessible, focusedId, launchChromium, SCREENS, screenshot, tabTo } from './support.ts';

/**
 * The hosted KYC onboarding page collecting what a scope still needs, in a real headless
 * Chromium at desktop and phone sizes, keyboard only wherever a keyboard can go (a file is
 * chosen through the system's picker, which the test stands in for): the OPEN fields with the
 * API's own validation, a document photo, the identity check, and "under review" at the end.
 * Scopes are reviewed by the operator here (auto-approval off), as in production.
 */

let f: UsersFixture;
let browser: Browser;

beforeAll(async () => {
  f = await startUsersApp({ env: { RAMPART_SANDBOX_AUTO_APPROVE: 'false' } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await f?.t.close();
});

async function pageUrl(userId: string): Promise<string> {
  const response = await asUser(f.t, f.partner, userId, 'GET', `/v3/users/${userId}/onboarding`);
  const { verificationLinkUrl } = (await response.json()) as { verificationLinkUrl: string };
  return `${f.t.baseUrl}${new URL(verificationLinkUrl).pathname}`;
}

async function typeInto(page: Page, id: string, text: string) {
  await tabTo(page, id);
  await page.keyboard.type(text);
}

/** A date input takes its parts as typed in the browser's locale (en-US: month, day, year). */
async function typeDate(page: Page, id: string, iso: string) {
  const [year, month, day] = iso.split('-');
  await tabTo(page, id);
  await page.keyboard.type(`${month}${day}${year}`);
}

describe.each(SCREENS)('hosted onboarding on %s', (screen, options) => {
  it('goes from OPEN to under review: details with the API’s validation, a document, the identity check', async () => {
    const user = await createUser(f.t, f.partner, {
      fields: { firstName: 'Ada' },
      scopes: ['DEBIT_CARD_L2'],
    });
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/Failed to load resource/.test(message.text()))
        problems.push(message.text());
    });
    try {
      await page.goto(await pageUrl(user.id));
      expect(await page.title()).toBe('Identity verification');
      // Only what is still OPEN is asked for.
      expect(await page.$('#o-firstName')).toBeNull();
      expect(
        await page.$$eval('#details-form [data-field]', (els) =>
          els.map((el) => el.getAttribute('data-field')),
        ),
      ).toEqual(['lastName', 'residenceAddress', 'dateOfBirth']);
      await expectAccessible(page, `${screen} details`);
      await screenshot(page, `onboarding-details-${screen}`);

      await typeInto(page, 'o-lastName', 'Lovelace');
      await typeInto(page, 'o-residenceAddress-street1', '1 Market St');
      await typeInto(page, 'o-residenceAddress-city', 'San Francisco');
      await typeInto(page, 'o-residenceAddress-state', 'CA');
      await typeInto(page, 'o-residenceAddress-postalCode', '94105');
      await tabTo(page, 'o-residenceAddress-country');
      await page.keyboard.type('United States');
      // Too young: the users domain's own validator answers, next to the field.
      await typeDate(page, 'o-dateOfBirth', '2015-06-01');
      await tabTo(page, 'save-details');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#o-dateOfBirth-error:not([hidden])');
      expect(await page.textContent('#o-dateOfBirth-error')).toBe('The user must be at least 18 years old.');
      expect(await focusedId(page)).toBe('errors');
      expect((await readUser(f.t, f.partner, user.id)).fields.lastName?.status).toBe('OPEN');
      await expectAccessible(page, `${screen} details refused`);
      await typeDate(page, 'o-dateOfBirth', '1990-06-01');
      await tabTo(page, 'save-details');
      await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
      expect(await page.$('#details-form')).toBeNull();
      expect(await page.textContent('[data-field="dateOfBirth"] .status')).toBe('provided');

      // The document: the file input opens the phone's camera.
      const file = page.locator('#d-governmentIdFront-file');
      expect(await file.getAttribute('capture')).toBe('environment');
      expect(await file.getAttribute('accept')).toContain('image/jpeg');
      await expectAccessible(page, `${screen} documents`);
      await page.locator('#documents-heading').scrollIntoViewIfNeeded();
      await screenshot(page, `onboarding-documents-${screen}`);
      await tabTo(page, 'd-governmentIdFront-type');
      await page.keyboard.type('Passport');
      await file.setInputFiles({
        name: 'passport.png',
        mimeType: 'image/png',
        buffer: solidPng(40, 30, [200, 200, 200]),
      });
      await tabTo(page, 'd-governmentIdFront-upload');
      await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
      expect(await page.textContent('[data-document="governmentIdFront"] .status')).toBe('provided');

      // The identity check, then the scope waits for its review.
      await tabTo(page, 'submit-check');
      await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
      expect(await page.getAttribute('#outcome', 'data-progress')).toBe('underReview');
      expect(await page.textContent('#outcome')).toBe('Submitted. Your details are under review.');
      await expectAccessible(page, `${screen} under review`);
      await screenshot(page, `onboarding-review-${screen}`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
    const read = await readUser(f.t, f.partner, user.id, 'DEBIT_CARD_L2');
    expect(read.scopes.DEBIT_CARD_L2?.status).toBe('PENDING');
    const all = await readUser(f.t, f.partner, user.id);
    expect(all.fields.governmentIdFront).toMatchObject({ status: 'SUBMITTED' });
  });
});
