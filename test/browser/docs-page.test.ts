import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from './support.ts';

/**
 * /docs in a real headless Chromium: the page must render the one OpenAPI document the guides
 * name, /openapi.json, not a copy of its own.
 */
let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/docs in Chromium', () => {
  it('loads /openapi.json and shows its operations', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await page.goto(`${t.baseUrl}/docs`);
      await page.waitForSelector('[data-path="/operator/v1/sandbox/clock"]');
      expect(await page.textContent('.information-container .title')).toContain('Rampart API');
      expect(requested).toContain('/openapi.json');
      expect(requested).not.toContain('/docs/json');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
    // Swagger UI renders the whole document: a few seconds on a busy two-core machine.
  }, 60_000);
});
