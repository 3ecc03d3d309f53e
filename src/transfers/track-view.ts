import { Money } from '../platform/money.ts';
import { historyView } from './status-history.ts';
import type { TransferRow } from './store.ts';

/**
 * The public tracker's answer (docs/contract.md, decision 36): what a buyer's tracking page shows,
 * reachable by anyone holding the transfer id, so nothing personal: no names, e-mails, phone
 * numbers or postal addresses, no owner, no notify URL. The parties appear as Wyre's tracker
 * showed them ("Walletorderholding WO_…"): their SRN's type and identifier.
 */
export interface TrackingView {
  transferId: string;
  feeCurrency: string;
  fee: Money;
  fees: Record<string, Money>;
  sourceCurrency: string;
  destCurrency: string;
  sourceAmount: Money;
  destAmount: Money;
  destSrn: string;
  from: string;
  to: string;
  rate: Money | null;
  customId: string | null;
  status: string;
  blockchainNetworkTx: string | null;
  message: string | null;
  transferHistoryEntryType: 'OUTGOING';
  successTimeline: TimelineEntry[];
  failedTimeline: TimelineEntry[];
  failureReason: string | null;
  reversalReason: null;
}

interface TimelineEntry {
  statusDetails: string;
  state: string;
  createdAt: number;
}

/** `walletorderholding:WO_…` → `Walletorderholding WO_…`, `ethereum:0x…` → `Ethereum 0x…`. */
export function partyLabel(srn: string): string {
  const colon = srn.indexOf(':');
  if (colon <= 0) return srn;
  return `${srn[0]!.toUpperCase()}${srn.slice(1, colon)} ${srn.slice(colon + 1)}`;
}

export function trackingView(row: TransferRow): TrackingView {
  const timeline = row.status_history.map((entry) => historyView(row.id, entry));
  const entry = (step: (typeof timeline)[number]): TimelineEntry => ({
    statusDetails: step.statusDetail,
    state: step.state,
    createdAt: step.createdAt,
  });
  const networkTx = row.blockchain_tx?.networkTxId;
  return {
    transferId: row.id,
    feeCurrency: row.source_currency,
    fee: new Money(row.total_fees),
    fees: Object.fromEntries(Object.entries(row.fees).map(([currency, fee]) => [currency, new Money(fee)])),
    sourceCurrency: row.source_currency,
    destCurrency: row.dest_currency,
    sourceAmount: new Money(row.source_amount),
    destAmount: new Money(row.dest_amount),
    destSrn: row.dest,
    from: partyLabel(row.source),
    to: partyLabel(row.dest),
    rate: row.exchange_rate === null ? null : new Money(row.exchange_rate),
    customId: row.custom_id,
    status: row.status,
    blockchainNetworkTx: typeof networkTx === 'string' ? networkTx : null,
    message: row.message,
    transferHistoryEntryType: 'OUTGOING',
    successTimeline: timeline.filter((step) => step.failedState === null).map(entry),
    failedTimeline: timeline.filter((step) => step.failedState !== null).map(entry),
    failureReason: row.failure_reason,
    reversalReason: null,
  };
}
