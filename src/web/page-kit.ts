import { ASSET_PATHS, themePath } from './assets.ts';
import { html, type SafeHtml } from './html.ts';
import { fill, messages } from './messages/index.ts';

export { fill, html, messages, type SafeHtml };

/** What makes one hosted page different from another; the rest of the document is shared. */
export interface HostedPage {
  title: string;
  /** The page's script (one of ASSET_PATHS), loaded deferred; none for a page without behaviour. */
  script?: string;
  /** The partner's accent colour (#rrggbb), as a stylesheet of its own after the shared one. */
  accentColor?: string | null;
  /** Before the main content (the partner's header). */
  header?: SafeHtml;
  main: SafeHtml;
  /** The "powered by" footer of the buyer-facing pages. */
  footer?: boolean;
}

/**
 * Every hosted page's document: the hosted pages' stylesheet, our own files only, no inline
 * script or style (the CSP of PAGE_SECURITY_HEADERS allows neither).
 */
export function hostedPage(page: HostedPage): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<link rel="stylesheet" href="${ASSET_PATHS.css}">
${page.accentColor ? html`<link rel="stylesheet" href="${themePath(page.accentColor)}">` : ''}
<link rel="icon" href="${ASSET_PATHS.icon}" type="image/svg+xml">
${page.script ? html`<script src="${page.script}" defer></script>` : ''}
</head>
<body>
${page.header ?? ''}
${page.main}
${page.footer ? html`<footer class="page-footer"><p>${messages.common.poweredBy}</p></footer>` : ''}
</body>
</html>`.value;
}

/** A plain hosted page with no script (the sandbox issuer's 3-D Secure page). */
export function page(title: string, body: SafeHtml): string {
  return hostedPage({
    title,
    main: html`<main>
${body}
</main>`,
  });
}
