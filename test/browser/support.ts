import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Shared pieces of the browser tests: Debian's /usr/bin/chromium, headless (no tool downloads a
 * browser of its own), the desktop and phone screens the hosted pages must fit, the axe-core
 * audit every screen passes, keyboard-only driving, and the guides' screenshots.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Context options of a 375×667 touch phone. */
export const PHONE: BrowserContextOptions = {
  viewport: { width: 375, height: 667 },
  isMobile: true,
  hasTouch: true,
};
export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
export const SCREENS = [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core in the page (through the DevTools protocol, which the page's CSP does not
 * govern, so the page itself stays as strict as it is) and expects no serious or critical
 * violation. Returns the violations of lower impact for whoever wants to look.
 */
export async function expectAccessible(page: Page, screen: string) {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{
            violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(grave, `axe on ${screen}: ${JSON.stringify(grave, null, 1)}`).toEqual([]);
  return violations;
}

/** Presses Tab until the element with this id has focus (the page has a fixed, finite order). */
export async function tabTo(page: Page, id: string) {
  for (let presses = 0; presses < 80; presses += 1) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached #${id}`);
}

export const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

const SCREENS_DIR = new URL('../../docs/screens/', import.meta.url);

/**
 * The guides' pictures (docs/screens/*.png), written only when UPDATE_SCREENSHOTS=1: a normal
 * run leaves the committed files alone. The visible screen only, so the files stay small.
 */
export async function screenshot(page: Page, name: string) {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  await mkdir(SCREENS_DIR, { recursive: true });
  await page.screenshot({
    path: new URL(`${name}.png`, SCREENS_DIR).pathname,
    animations: 'disabled',
    caret: 'hide',
  });
}
