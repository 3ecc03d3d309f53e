import type { FastifyReply } from 'fastify';
import { roleAllows } from '../operator/index.ts';
import { html, PAGE_SECURITY_HEADERS, type SafeHtml } from '../web/index.ts';
import { csrfField, type WebSession } from '../web/sessions/index.ts';
import { CONSOLE_ASSET_PATHS } from './assets.ts';
import { CONSOLE_NAV } from './nav.ts';

function document(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · Rampart console</title>
<link rel="stylesheet" href="${CONSOLE_ASSET_PATHS.css}">
<link rel="icon" href="${CONSOLE_ASSET_PATHS.icon}" type="image/svg+xml">
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
${body}
</body>
</html>`.value;
}

/**
 * A signed-in console page: the header (who, role, sign out), the sections this role may open
 * and `main`. `current` is the nav entry's href to mark as the current page. No script, no
 * inline style: it runs under PAGE_SECURITY_HEADERS.
 */
export function consolePage(session: WebSession, title: string, main: SafeHtml, current?: string): string {
  const entries = CONSOLE_NAV.filter((entry) => roleAllows(session.role, entry.role));
  const links = entries.map(
    (entry) =>
      html`<li><a href="${entry.href}"${entry.href === current ? html` aria-current="page"` : ''}>${entry.label}</a></li>`,
  );
  return document(
    title,
    html`<header class="topbar">
<a class="brand" href="/console">Rampart console</a>
<div class="who"><span>Signed in as <strong>${session.label}</strong></span> <span class="role">${session.role ?? ''}</span>
<form method="post" action="/console/sign-out">${csrfField(session)}<button class="button secondary small" type="submit">Sign out</button></form></div>
</header>
<div class="layout">
<nav class="nav" aria-label="Console sections"><ul>${links}</ul></nav>
<main id="main" tabindex="-1">
${main}
</main>
</div>`,
  );
}

/** A console page before sign-in (setup, sign-in, second factor, errors without a session). */
export function consolePublicPage(title: string, main: SafeHtml): string {
  return document(
    title,
    html`<header class="topbar"><span class="brand">Rampart console</span></header>
<main id="main" tabindex="-1" class="narrow">
${main}
</main>`,
  );
}

/** Sends a console page with the hosted pages' security headers (strict CSP, no caching, no framing). */
export function sendConsolePage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).headers(PAGE_SECURITY_HEADERS).type('text/html; charset=utf-8').send(page);
}

/** A notice above a form: what went wrong or what just happened. */
export function notice(kind: 'error' | 'ok' | 'warn', text: string | SafeHtml): SafeHtml {
  return html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`;
}
