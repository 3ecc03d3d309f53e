/** The public face of transfers/: what routes and other domains use. Inside transfers/, files import each other directly. */

export type { BankRail } from './bank-port.ts';
export {
  consoleTransfer,
  consoleTransfersByTxHash,
  consoleTransfersOfAccount,
  consoleTransfersOfParty,
} from './console-store.ts';
export { recordChainDeposits } from './deposits.ts';
export { onTransferOutcome, registerTransferJobs } from './lifecycle.ts';
export { transfersOperatorRoutes } from './operator-routes.ts';
export {
  completeOrderTransfer,
  completeOrderTransfers,
  failOrderTransfer,
  type OrderDelivery,
  recordOrderTransfer,
  recordOrderTransfers,
} from './order-transfers.ts';
export { transfersRoutes } from './routes.ts';
export { sandboxBank } from './sandbox-bank.ts';
export {
  createSettledTransfers,
  getTransfer,
  type TransfersDeps,
  trackTransfer,
  transfersAfter,
} from './service.ts';
export { historyView } from './status-history.ts';
export type { TransferRow } from './store.ts';
export { transfersV2Routes } from './v2-routes.ts';
