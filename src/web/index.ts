/** The public face of web/: what routes and other domains use. Inside web/, files import each other directly. */
export { ASSET_PATHS, ASSETS, type Asset, themeCss, themePath } from './assets.ts';
export { fillHtml, html, PAGE_SECURITY_HEADERS, type SafeHtml } from './html.ts';
export { fill, messages } from './messages/index.ts';
export { errorPageHtml } from './onboarding-page.ts';
export { onboardingWebRoutes } from './onboarding-routes.ts';
export { type HostedPage, hostedPage, page } from './page-kit.ts';
