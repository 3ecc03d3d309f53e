/** The public face of console/: the operator console's kit and routes. */
export { consoleAdminRoutes } from './admin-routes.ts';
export { CONSOLE_ASSET_PATHS } from './assets.ts';
export type { ConsoleDeps } from './deps.ts';
export { consoleAct, consoleGuard, SIGN_IN_PATH } from './guard.ts';
export { setupConsoleRoutes } from './kit.ts';
export { consolePage, consolePublicPage, notice, sendConsolePage, tableRegion } from './layout.ts';
export { CONSOLE_NAV, type ConsoleNavEntry } from './nav.ts';
export { consoleOperatorRoutes } from './operators-routes.ts';
export { consoleRoutes } from './routes.ts';
export { consoleSetupRoutes } from './setup-routes.ts';
export { consoleSignInRoutes } from './sign-in-routes.ts';
export { consoleSupportRoutes } from './support-routes.ts';
export { consoleTokenRoutes } from './tokens-routes.ts';
