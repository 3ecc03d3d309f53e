/** The public face of callbacks/: what routes and other domains use. Inside callbacks/, files import each other directly. */

export {
  attemptsOfDeliveries,
  type ConsoleAttempt,
  consoleDelivery,
  type DeliveryPageQuery,
  deliveriesOfTrigger,
  pageConsoleDeliveries,
} from './console-store.ts';
export type { DeliveryRow, DeliveryStatus } from './deliveries-store.ts';
export {
  queueTransferCreatedCall,
  queueTransfersCreatedCall,
  type TransferCreatedArguments,
  transfersCreatedValues,
} from './deliveries-store.ts';
export { callbackOperatorRoutes } from './operator-routes.ts';
export { partnerDeliveries, partnerDelivery, resendCallback } from './operator-service.ts';
export { callbackRoutes } from './routes.ts';
export { enqueueDelivery, transferCreatedArguments } from './service.ts';
export type { SubscriptionsDeps, TransferVisibility } from './subscriptions-service.ts';
export {
  assertNotifyUrlAllowed,
  type CallbackUrlDeps,
  type CallbackUrlRules,
  PRODUCTION_CALLBACK_URLS,
  sandboxCallbackUrls,
} from './url-policy.ts';
export { type DeliveryWorker, startCallbackWorker } from './worker.ts';
