/** The public face of wallet-orders/: what routes and other domains use. Inside wallet-orders/, files import each other directly. */
export { cardProcessorRoutes } from './card-processor-routes.ts';
export { type CodeSender, sandboxCodeSender, smsCodeSender, undeliveredCodes } from './code-sender.ts';
export type { WalletOrdersDeps } from './deps.ts';
export { createOrderPlacement } from './order-groups.ts';
export { refundRoutes } from './refund-routes.ts';
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
export { threeDsRoutes } from './three-ds-routes.ts';
export { onOrderDeliveries, onOrderDelivery } from './transitions.ts';
export { parseTwilioSettings, type TwilioSettings } from './twilio-settings.ts';
export { registerCaptureSweep, registerWalletOrderJobs } from './worker.ts';
