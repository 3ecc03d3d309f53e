/** The public face of wallets/: what routes and other domains use. Inside wallets/, files import each other directly. */

export { consoleWallet } from './console-store.ts';
export type { WalletsDeps } from './deps.ts';
export { walletRoutes } from './routes.ts';
export { walletExists, walletOwners, walletsAfter } from './service.ts';
