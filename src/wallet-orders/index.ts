/** The public face of wallet-orders/: what routes and other domains use. Inside wallet-orders/, files import each other directly. */
export { cardPaymentsNeedingAttention } from './attention.ts';
export { cardProcessorRoutes } from './card-processor-routes.ts';
export { type CardReconciliation, reconcileCards } from './card-reconciliation.ts';
export { type CodeSender, sandboxCodeSender, smsCodeSender, undeliveredCodes } from './code-sender.ts';
export {
  consoleOrderByReservation,
  consoleOrdersByEmail,
  consoleOrdersOfAccount,
  consoleOrdersOfUser,
} from './console-store.ts';
export type { WalletOrdersDeps } from './deps.ts';
export {
  disputesPage,
  type ListedDispute,
  type ListedOrder,
  type OrderStatus,
  recentOrdersPage,
} from './listing.ts';
export { createOrderPlacement } from './order-groups.ts';
export { periodOf, refundRoutes } from './refund-routes.ts';
export { walletOrderRoutes } from './routes.ts';
export { ProcessBody, parseProcessBody } from './schemas.ts';
export {
  authorizationState,
  placePreparedOrder,
  prepareHostedOrder,
  readFullOrder,
  readWalletOrder,
  submitAuthorizationCodes,
  type WalletOrderRequest,
  type WalletOrderView,
  walletOrdersAfter,
} from './service.ts';
export { findOrder, type OrderRow, orderBillingAddresses } from './store.ts';
export { threeDsRoutes } from './three-ds-routes.ts';
export { onOrderDeliveries, onOrderDelivery } from './transitions.ts';
export { parseTwilioSettings, type TwilioSettings } from './twilio-settings.ts';
export { registerCaptureSweep, registerWalletOrderJobs } from './worker.ts';
