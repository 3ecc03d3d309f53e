import { createHash } from 'node:crypto';
import { CHECKOUT_CSS } from './assets/checkout-css.ts';
import { CHECKOUT_JS } from './assets/checkout-js.ts';

/** Our own static files for the hosted checkout: nothing is loaded from another origin. */
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

export const ASSETS: Record<string, Asset> = {
  'checkout.js': asset(CHECKOUT_JS, 'text/javascript; charset=utf-8'),
  'checkout.css': asset(CHECKOUT_CSS, 'text/css; charset=utf-8'),
  // Served so the browser's automatic icon request finds something of ours, not a 404.
  'icon.svg': asset(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1a56db"/></svg>',
    'image/svg+xml',
  ),
};

export const ASSET_PATHS = {
  js: '/purchase/assets/checkout.js',
  css: '/purchase/assets/checkout.css',
  icon: '/purchase/assets/icon.svg',
  /** Where the forms point when our script did not run: a page that says JavaScript is needed. */
  noScript: '/purchase/no-script',
};
