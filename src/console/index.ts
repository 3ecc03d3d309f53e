/** The public face of console/: the operator console's kit and routes. */
export { CONSOLE_ASSET_PATHS } from './assets.ts';
export type { ConsoleDeps } from './deps.ts';
export { consoleAct, consoleGuard, SIGN_IN_PATH } from './guard.ts';
export { setupConsoleRoutes } from './kit.ts';
export { consolePage, consolePublicPage, notice, sendConsolePage } from './layout.ts';
export { CONSOLE_NAV, type ConsoleNavEntry } from './nav.ts';
export { consoleRoutes } from './routes.ts';
