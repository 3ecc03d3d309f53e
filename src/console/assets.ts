import { createHash } from 'node:crypto';
import { CONSOLE_CSS } from './assets/console-css.ts';

/** The console's own static files, bundled with the code: nothing comes from another origin. */
export interface ConsoleAsset {
  body: string;
  type: string;
  etag: string;
}

const asset = (body: string, type: string): ConsoleAsset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

export const CONSOLE_ASSETS: Record<string, ConsoleAsset> = {
  'console.css': asset(CONSOLE_CSS, 'text/css; charset=utf-8'),
  'icon.svg': asset(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#16213a"/><path d="M4 11h8v1.5H4z" fill="#fff"/></svg>',
    'image/svg+xml',
  ),
};

export const CONSOLE_ASSET_PATHS = { css: '/console/assets/console.css', icon: '/console/assets/icon.svg' };
