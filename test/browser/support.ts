import { type Browser, chromium } from 'playwright-core';

/**
 * Shared pieces of the browser tests: Debian's /usr/bin/chromium, headless (no tool downloads a
 * browser of its own), and the phone screen the hosted pages must fit.
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
export const PHONE = { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true };
