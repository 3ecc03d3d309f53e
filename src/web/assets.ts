import { createHash } from 'node:crypto';
import { BRAND_RANGES } from './assets/card-brands.ts';
import { CARD_FORMAT_JS } from './assets/card-format-js.ts';
import { CHECKOUT_CSS } from './assets/checkout-css.ts';
import { CHECKOUT_JS } from './assets/checkout-js.ts';
import { ONBOARDING_JS } from './assets/onboarding-js.ts';
import { PAGE_HELPERS_JS } from './assets/page-helpers-js.ts';
import { messages } from './messages/index.ts';

/** Our own static files for the hosted pages: nothing is loaded from another origin. */
export interface Asset {
  body: string;
  type: string;
  etag: string;
}

const asset = (body: string, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

/**
 * The checkout script: the catalogue's script texts and the card brands as data, then the card
 * helpers and the pages' shared helpers, then the page logic. One file, so the page makes one request and the CSP stays
 * `script-src 'self'`.
 */
const checkoutScript = [
  `var MESSAGES = ${JSON.stringify(messages.checkoutScript)};`,
  `var BRAND_RANGES = ${JSON.stringify(BRAND_RANGES)};`,
  CARD_FORMAT_JS,
  PAGE_HELPERS_JS,
  CHECKOUT_JS,
].join('\n');

export const ASSETS: Record<string, Asset> = {
  'checkout.js': asset(`(function () {\n${checkoutScript}\n})();\n`, 'text/javascript; charset=utf-8'),
  'onboarding.js': asset(
    `(function () {\n${PAGE_HELPERS_JS}\n${ONBOARDING_JS}\n})();\n`,
    'text/javascript; charset=utf-8',
  ),
  'checkout.css': asset(CHECKOUT_CSS, 'text/css; charset=utf-8'),
  // Served so the browser's automatic icon request finds something of ours, not a 404.
  'icon.svg': asset(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1a56db"/></svg>',
    'image/svg+xml',
  ),
};

export const ASSET_PATHS = {
  js: '/purchase/assets/checkout.js',
  onboardingJs: '/purchase/assets/onboarding.js',
  css: '/purchase/assets/checkout.css',
  icon: '/purchase/assets/icon.svg',
  /** Where the forms point when our script did not run: a page that says JavaScript is needed. */
  noScript: '/purchase/no-script',
};

/**
 * The partner's accent colour as a stylesheet named by the colour itself: the CSP allows no
 * inline style, and the name carries everything, so serving it reads nothing from the database.
 */
export const themePath = (accentColor: string) => `/purchase/themes/${accentColor.slice(1)}.css`;

export function themeCss(hex: string): string {
  return `:root { --accent: #${hex}; }\n`;
}
