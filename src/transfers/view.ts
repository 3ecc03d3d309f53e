import { Money } from '../platform/money.ts';
import { historyView, type StatusHistoryEntry } from './status-history.ts';
import type { NewTransfer, TransferRow, TransferStatus } from './store.ts';

/** The Transfer of docs/contract.md (Transfers); amounts exact (json.ts writes them as numbers). */
export interface TransferView {
  id: string;
  status: TransferStatus;
  owner: string;
  source: string;
  dest: string;
  sourceCurrency: string;
  sourceAmount: Money;
  destCurrency: string;
  destAmount: Money;
  exchangeRate: Money | null;
  message: string | null;
  customId: string | null;
  fees: Record<string, Money>;
  totalFees: Money;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  cancelledAt: Date | null;
  expiresAt: Date;
  failureReason: string | null;
  blockchainTx: Record<string, unknown> | null;
  statusHistories: StatusHistoryEntry[];
  pendingSubStatus: null;
  reversingSubStatus: null;
  reversalReason: string | null;
}

const money = (text: string) => new Money(text);

/** The stored BlockchainTx keeps amounts as decimal text; the API shows numbers. */
function blockchainTxView(tx: Record<string, unknown> | null) {
  if (!tx) return null;
  return { ...tx, amount: money(String(tx.amount)), networkFee: money(String(tx.networkFee)) };
}

/**
 * A row as read, or as just written (a NewTransfer: no blockchainTx, failure or cancellation
 * yet, updated when created), so a create answers without reading its row back.
 */
export type ViewedRow = NewTransfer &
  Partial<Pick<TransferRow, 'blockchain_tx' | 'failure_reason' | 'cancelled_at' | 'updated_at'>>;

export function transferView(row: ViewedRow): TransferView {
  return {
    id: row.id,
    status: row.status,
    owner: row.owner,
    source: row.source,
    dest: row.dest,
    sourceCurrency: row.source_currency,
    sourceAmount: money(row.source_amount),
    destCurrency: row.dest_currency,
    destAmount: money(row.dest_amount),
    exchangeRate: row.exchange_rate === null ? null : money(row.exchange_rate),
    message: row.message,
    customId: row.custom_id,
    fees: Object.fromEntries(Object.entries(row.fees).map(([currency, fee]) => [currency, money(fee)])),
    totalFees: money(row.total_fees),
    createdAt: row.created_at,
    updatedAt: row.updated_at ?? row.created_at,
    completedAt: row.completed_at,
    cancelledAt: row.cancelled_at ?? null,
    expiresAt: row.expires_at,
    // A REVERSED transfer's reason is the bank's reason for the reversal, not a failure.
    failureReason: row.status === 'REVERSED' ? null : (row.failure_reason ?? null),
    blockchainTx: blockchainTxView(row.blockchain_tx ?? null),
    statusHistories: row.status_history.map((entry) => historyView(row.id, entry)),
    pendingSubStatus: null,
    reversingSubStatus: null,
    reversalReason: row.status === 'REVERSED' ? (row.failure_reason ?? null) : null,
  };
}

/** A transfer as the history list shows it: Wyre's list items carried these beside the Transfer. */
export interface TransferListItemView extends TransferView {
  closedAt: Date | null;
  sourceName: string;
  destName: string;
  blockchainTxId: string | null;
  destNickname: string | null;
}

const CLOSED = new Set<TransferStatus>(['COMPLETED', 'FAILED', 'EXPIRED']);

/**
 * List items (docs/contract.md, decision 65): `closedAt` is when the transfer reached its final
 * status, names are the parties' SRNs (Rampart keeps no display names for parties), the chain
 * transaction's hash is repeated as `blockchainTxId`, and no destination has a nickname.
 */
export function transferListItemView(row: ViewedRow): TransferListItemView {
  const view = transferView(row);
  const closedAt = CLOSED.has(view.status) ? (view.completedAt ?? view.cancelledAt ?? view.updatedAt) : null;
  const networkTxId = view.blockchainTx?.networkTxId;
  return {
    ...view,
    closedAt,
    sourceName: view.source,
    destName: view.dest,
    blockchainTxId: typeof networkTxId === 'string' ? networkTxId : null,
    destNickname: null,
  };
}
