import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, seedOf } from '../console/support.ts';
import { operatorHeaders, startTestApp, TEST_OPERATOR_TOKEN, type TestApp } from '../helpers/app.ts';
import { expectAccessible, focusedId, launchChromium, SCREENS, screenshot, tabTo } from './support.ts';

/**
 * The console's first run in a real headless Chromium, at desktop and phone sizes, the desktop
 * one by keyboard only: the setup page makes the first admin with the operator token, the
 * first sign-in enrols the TOTP second factor, the home page, signing out, and signing in
 * again with a code. Every page passes axe and runs under the strict CSP without a console error.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery staple';

describe.each(SCREENS)('console sign-in on %s', (screen, options) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  const byKeyboard = screen === 'desktop';

  /** Types into a field: Tab to it and type on the desktop run, fill on the phone. */
  async function enter(page: Page, id: string, text: string) {
    if (byKeyboard) {
      await tabTo(page, id);
      await page.keyboard.type(text);
    } else {
      await page.fill(`#${id}`, text);
    }
  }

  /** Submits the form the last field belongs to: Enter on the desktop run, a tap on the phone. */
  async function submit(page: Page, button: string) {
    await Promise.all([
      page.waitForNavigation(),
      byKeyboard ? page.keyboard.press('Enter') : page.getByRole('button', { name: button }).tap(),
    ]);
  }

  it('sets up the first admin, enrols TOTP, signs in with a code and out again', async () => {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      // The refused code's page is a 400, which Chromium reports as a failed load.
      if (message.type() === 'error' && !/Failed to load resource/.test(message.text()))
        problems.push(message.text());
    });
    try {
      // No operator yet: the console sends people to sign in, which points at the setup.
      await page.goto(`${t.baseUrl}/console`);
      expect(new URL(page.url()).pathname).toBe('/console/sign-in');
      await expect(page.getByText('No operator exists yet')).toBeTruthy();
      await expectAccessible(page, `sign-in before setup (${screen})`);
      await page.goto(`${t.baseUrl}/console/setup`);
      await expectAccessible(page, `setup (${screen})`);
      await enter(page, 'field-operatorToken', TEST_OPERATOR_TOKEN);
      await enter(page, 'field-name', 'Ada Lovelace');
      await enter(page, 'field-email', EMAIL);
      await enter(page, 'field-password', PASSWORD);
      await enter(page, 'field-confirmPassword', PASSWORD);
      await screenshot(page, `console-setup-${screen}`);
      await submit(page, 'Create the first admin');

      // Sign in: e-mail and password, then enrolment of the second factor.
      expect(new URL(page.url()).pathname).toBe('/console/sign-in');
      expect(await page.textContent('.notice')).toContain('The first admin is ready');
      await expectAccessible(page, `sign-in (${screen})`);
      await enter(page, 'field-email', EMAIL);
      await enter(page, 'field-password', PASSWORD);
      await screenshot(page, `console-sign-in-${screen}`);
      await submit(page, 'Continue');
      expect(new URL(page.url()).pathname).toBe('/console/sign-in/enrol');
      await expectAccessible(page, `enrolment (${screen})`);
      await screenshot(page, `console-enrol-${screen}`);
      const seed = seedOf((await page.textContent('#totp-secret')) ?? '');
      expect(await page.textContent('main')).toContain('otpauth://totp/Rampart%3Aada%40example.com?secret=');
      // A wrong code first: refused, the page says so and keeps the key.
      await enter(page, 'field-code', '000000' === codeFor(t, seed) ? '111111' : '000000');
      await submit(page, 'Confirm and sign in');
      expect(await page.textContent('[role="alert"]')).toContain('not right');
      await expectAccessible(page, `enrolment refused (${screen})`);
      await enter(page, 'field-code', codeFor(t, seed));
      await submit(page, 'Confirm and sign in');

      // Home: who is signed in, the sections of the role.
      expect(new URL(page.url()).pathname).toBe('/console');
      expect(await page.textContent('.topbar')).toContain(EMAIL);
      expect(await page.getByRole('link', { name: 'Operators' }).count()).toBeGreaterThan(0);
      await expectAccessible(page, `home (${screen})`);
      await screenshot(page, `console-home-${screen}`);
      await page.goto(`${t.baseUrl}/console/operators`);
      await expectAccessible(page, `operators (${screen})`);
      await screenshot(page, `console-operators-${screen}`);
      await page.goto(`${t.baseUrl}/console/tokens`);
      await expectAccessible(page, `tokens (${screen})`);

      // Sign out.
      if (byKeyboard) {
        await tabTo(page, 'sign-out');
        await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      } else {
        await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign out' }).tap()]);
      }
      expect(await page.textContent('.notice')).toContain('You are signed out');
      await page.goto(`${t.baseUrl}/console`);
      expect(new URL(page.url()).pathname).toBe('/console/sign-in');

      // Again, with a code: the clock moves on so the code is not the enrolment's.
      await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
        method: 'POST',
        headers: operatorHeaders(),
        body: JSON.stringify({ advanceSeconds: 60 }),
      });
      await enter(page, 'field-email', EMAIL);
      await enter(page, 'field-password', PASSWORD);
      await submit(page, 'Continue');
      expect(new URL(page.url()).pathname).toBe('/console/sign-in/code');
      expect(await focusedId(page)).toBe('field-code');
      await expectAccessible(page, `code (${screen})`);
      await enter(page, 'field-code', codeFor(t, seed));
      await screenshot(page, `console-code-${screen}`);
      await submit(page, 'Sign in');
      expect(new URL(page.url()).pathname).toBe('/console');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
