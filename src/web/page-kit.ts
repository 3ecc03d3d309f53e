import { ASSET_PATHS } from './assets.ts';
import { html, type SafeHtml } from './html.ts';
import { fill, messages } from './messages/index.ts';

export { fill, html, messages, type SafeHtml };

/**
 * A hosted page other than the checkout (the KYC onboarding page): the same stylesheet and the
 * same rules, our own files only, no inline script or style.
 */
export function page(title: string, main: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${ASSET_PATHS.css}">
<link rel="icon" href="${ASSET_PATHS.icon}" type="image/svg+xml">
<script src="${ASSET_PATHS.onboardingJs}" defer></script>
</head>
<body>
${main}
<footer class="page-footer"><p>${messages.common.poweredBy}</p></footer>
</body>
</html>`.value;
}
