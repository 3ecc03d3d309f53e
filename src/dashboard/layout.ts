import { html, type SafeHtml } from '../web/index.ts';
import type { WebSession } from '../web/sessions/index.ts';
import { csrfField } from '../web/sessions/index.ts';

export const STYLESHEET = '/dashboard/assets/dashboard.css';

/** The pages of the nav, in order; the test purchase only where the environment offers it. */
const NAV: { path: string; label: string; sandboxOnly?: boolean }[] = [
  { path: '/dashboard/orders', label: 'Orders' },
  { path: '/dashboard/transfers', label: 'Transfers' },
  { path: '/dashboard/users', label: 'Users' },
  { path: '/dashboard/balances', label: 'Balances' },
  { path: '/dashboard/callbacks', label: 'Callbacks' },
  { path: '/dashboard/api-keys', label: 'API keys' },
  { path: '/dashboard/webhook-secret', label: 'Webhook secret' },
  { path: '/dashboard/test-purchase', label: 'Test purchase', sandboxOnly: true },
];

export interface PageFrame {
  session: WebSession;
  /** The nav entry's path of this page. */
  current: string;
  sandbox: boolean;
}

function nav(frame: PageFrame): SafeHtml {
  const links = NAV.filter((entry) => frame.sandbox || !entry.sandboxOnly).map(
    (entry) =>
      html`<li><a href="${entry.path}" id="nav-${entry.path.slice('/dashboard/'.length)}"${entry.path === frame.current ? html` aria-current="page"` : ''}>${entry.label}</a></li>`,
  );
  return html`<nav aria-label="Dashboard"><ul class="nav">${links}
<li><form method="post" action="/dashboard/sign-out">${csrfField(frame.session)}<button type="submit" class="link" id="sign-out">Sign out</button></form></li></ul></nav>`;
}

function document(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Rampart dashboard</title>
<link rel="stylesheet" href="${STYLESHEET}">
</head>
<body>
${body}
</body>
</html>`.value;
}

/**
 * A signed-in page: the account's name in the header, the nav, the page's main part. Our own
 * stylesheet only, no script, nothing inline, so it runs under PAGE_SECURITY_HEADERS.
 */
export function dashboardPage(frame: PageFrame, title: string, main: SafeHtml): string {
  return document(
    title,
    html`<a class="skip" href="#main">Skip to the page</a>
<header class="top"><p class="brand">Rampart <span>dashboard</span></p><p class="who" id="account-name">${frame.session.label}</p></header>
${nav(frame)}
<main id="main" tabindex="-1"><h1>${title}</h1>
${main}
</main>`,
  );
}

/** A page without a session (sign-in, a refusal before sign-in). */
export function plainPage(title: string, main: SafeHtml): string {
  return document(
    title,
    html`<header class="top"><p class="brand">Rampart <span>dashboard</span></p></header>
<main id="main" class="narrow"><h1>${title}</h1>
${main}
</main>`,
  );
}

/** A message above a page's content: role=alert for a refusal, role=status for news. */
export function notice(kind: 'error' | 'ok', text: string | undefined): SafeHtml {
  if (!text) return html``;
  return kind === 'error'
    ? html`<p class="notice error" role="alert" id="notice">${text}</p>`
    : html`<p class="notice ok" role="status" id="notice">${text}</p>`;
}
