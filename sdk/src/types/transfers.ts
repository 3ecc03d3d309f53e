import type { Amount, AmountInput, EpochMs } from './common.js';

/** POST /v3/transfers (API.md, facts §1.5). Give sourceAmount or destAmount, not both. */
export interface CreateTransferRequest {
  /** SRN; `account:AC_…`, `user:US_…` (masqueraded), … */
  source?: string;
  sourceCurrency: string;
  sourceAmount?: AmountInput;
  destAmount?: AmountInput;
  /** SRN: `account:`, `user:`, `<chain>:<address>` or `paymentmethod:PA_…` (a bank payout). */
  dest: string;
  destCurrency?: string;
  message?: string;
  /** Gets an implicit subscription: `{subscriptionId, trigger}` is POSTed here on creation. */
  notifyUrl?: string;
  autoConfirm?: boolean;
  /** Unique per partner. */
  customId?: string;
  amountIncludesFees?: boolean;
  /** Quote only: status PREVIEW, nothing moves. */
  preview?: boolean;
  /** No e-mails or SMS to the destination. */
  muteMessages?: boolean;
}

export type TransferStatus =
  | 'PREVIEW'
  | 'UNCONFIRMED'
  | 'PENDING'
  | 'COMPLETED'
  | 'FAILED'
  | 'EXPIRED'
  | 'REVERSED';

export interface TransferStatusHistory {
  id: string;
  transferId: string;
  createdAt: EpochMs;
  type: string;
  statusOrder: number;
  statusDetail: string;
  state: string;
  failedState: string | null;
}

export interface Transfer {
  id: string;
  status: TransferStatus;
  owner: string;
  source: string;
  dest: string;
  sourceCurrency: string;
  sourceAmount: Amount;
  destCurrency: string;
  destAmount: Amount;
  exchangeRate: Amount | null;
  message: string | null;
  customId: string | null;
  fees: Record<string, Amount>;
  /** In the source currency. */
  totalFees: Amount;
  createdAt: EpochMs;
  updatedAt: EpochMs | null;
  completedAt: EpochMs | null;
  cancelledAt: EpochMs | null;
  expiresAt: EpochMs;
  failureReason: string | null;
  blockchainTx: BlockchainTx | null;
  statusHistories: TransferStatusHistory[];
  /** Wyre fields kept for compatibility; always null in Rampart today. */
  pendingSubStatus: string | null;
  reversingSubStatus: string | null;
  reversalReason: string | null;
}

/** The chain transaction of a withdrawal. */
export interface BlockchainTx {
  /** `TR_…`. */
  id: string;
  networkTxId: string;
  createdAt: EpochMs;
  confirmations: number;
  timeObserved: EpochMs;
  blockTime: EpochMs;
  blockhash: string;
  amount: Amount;
  direction: string;
  networkFee: Amount;
  address: string;
  sourceAddress: string;
  currency: string;
  twinTxId: string | null;
}

export interface CreateSubscriptionRequest {
  /** SRN to watch, e.g. `account:AC_…`, `transfer:TF_…`. */
  subscribeTo: string;
  /** URL receiving `{subscriptionId, trigger}` POSTs. */
  notifyTarget: string;
}

export interface Subscription {
  /** `DA_…`. */
  id: string;
  subscribed: string;
  notifyTarget: string;
  createdAt: EpochMs;
  /**
   * The last delivery's outcome, told coarsely: null when delivered (or not yet attempted),
   * `refusedByReceiver (HTTP <status>)`, `unreachable` or `timedOut`.
   */
  failure: string | null;
  failCount: number;
}

/** The partner's callback signing secret (docs/contract.md, decision 10). */
export interface SigningSecret {
  webhookSecret: string;
}

/** What Rampart POSTs to a notifyUrl / notifyTarget. */
export interface CallbackPayload {
  subscriptionId: string;
  /** e.g. `transfer:TF_…`: fetch the object to read its state. */
  trigger: string;
}
