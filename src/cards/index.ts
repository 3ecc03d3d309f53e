/** The public face of cards/: what routes and other domains use. Inside cards/, files import each other directly. */
export { brandName, type CardBrand, lookupBin } from './bins.ts';
export { type CheckedCard, checkCard } from './card-input.ts';
export {
  type BalanceTransaction,
  type CardConnector,
  type ConnectorResult,
  ConnectorSignatureError,
  type DisputeSnapshot,
  type PaymentSnapshot,
  type Payout,
  type ProcessorEvent,
  paymentKey,
  type RefundSnapshot,
  type TimeRange,
} from './connector.ts';
export { connectorProcessor } from './connector-processor.ts';
export { CardDeclinedError, cardErrors } from './errors.ts';
export { cardFingerprint } from './fingerprint.ts';
export { noCardProcessor } from './no-processor.ts';
export {
  CARD_OPERATION_JOB,
  type CardPaymentRow,
  cardHasPaidOrder,
  failedOperations,
  findPayment,
  lockOperation,
  lockPayment,
  type OperationKind,
  type OperationRow,
  orderOfReference,
  paymentsNeedingAttention,
  recordEvent,
  updateOperation,
  updatePayment,
} from './payments-store.ts';
export type {
  AuthorizationStep,
  AuthorizeRequest,
  CardProcessor,
  CardsDeps,
  DeclineReason,
  DisputeAction,
  ProcessorBooks,
} from './processor.ts';
export { sandboxProcessor } from './sandbox-processor.ts';
export { authorizedStep, cardAuthorization, declineError } from './service.ts';
