import type { Amount, EpochMs } from './common.js';
import type { CreateTransferRequest } from './transfers.js';

/** v2 wallets, v2 transfer paths and the legacy account (docs/contract.md, "Wallets and v2 transfers"). */

export type V2WalletType = 'DEFAULT' | 'ENTERPRISE' | 'SAVINGS';

/** POST /v2/wallets; the wallet belongs to the party the client acts as (masquerade). */
export interface CreateWalletRequest {
  /** Your own identifier, unique per owner. */
  name: string;
  callbackUrl?: string | null;
  notes?: string | null;
  /** DEFAULT when left out. */
  type?: V2WalletType;
}

/** POST /v2/wallets/batch: all or nothing, at most 100. */
export interface CreateWalletsRequest {
  wallets: CreateWalletRequest[];
}

/** POST /v2/wallet/{walletId}/update: fields sent change, null clears. */
export interface UpdateWalletRequest {
  name?: string;
  callbackUrl?: string | null;
  notes?: string | null;
  verificationData?: unknown;
}

export interface Wallet {
  id: string;
  /** `wallet:WA_…`: a transfer source or dest. */
  srn: string;
  name: string;
  owner: string;
  status: null;
  type: V2WalletType;
  callbackUrl: string | null;
  notes: string | null;
  pusherChannel: string;
  depositAddresses: Record<string, string>;
  /** What it can spend now (its availableBalances). */
  balances: Record<string, Amount>;
  totalBalances: Record<string, Amount>;
  availableBalances: Record<string, Amount>;
  verificationData: unknown;
  createdAt: EpochMs;
}

export interface WalletList {
  data: Wallet[];
}

export interface WalletNameQuery {
  name: string;
}

/** POST /v2/transfers and /v2/quote: the v3 body, with v2's `callbackUrl` for `notifyUrl`. */
export interface V2CreateTransferRequest extends CreateTransferRequest {
  callbackUrl?: string;
}

export interface CustomIdQuery {
  customId: string;
}

export interface TrackingStep {
  statusDetails: string;
  state: string;
  createdAt: EpochMs;
}

/** GET /v2/transfer/{transferId}/track (no auth): nothing personal. */
export interface TransferTracking {
  transferId: string;
  feeCurrency: string;
  fee: Amount;
  fees: Record<string, Amount>;
  sourceCurrency: string;
  destCurrency: string;
  sourceAmount: Amount;
  destAmount: Amount;
  destSrn: string;
  /** `Account AC_…`, `Wallet WA_…`, `Walletorderholding WO_…`. */
  from: string;
  to: string;
  rate: Amount | null;
  customId: string | null;
  status: string;
  blockchainNetworkTx: string | null;
  message: string | null;
  transferHistoryEntryType: 'OUTGOING';
  successTimeline: TrackingStep[];
  failedTimeline: TrackingStep[];
  failureReason: string | null;
  reversalReason: null;
}

export interface LegacyLedger {
  srn: string;
  currency: string;
  /** Available now. */
  balance: Amount;
  /** Held by unconfirmed transfers. */
  pendingBalance: Amount;
  totalBalance: Amount;
}

export interface LegacyProfile {
  firstName: string | null;
  lastName: string | null;
  language: string;
  address: unknown;
  businessAccount: boolean;
  taxId: null;
  doingBusinessAs: null;
  website: null;
  ssn: null;
  dateOfBirth: unknown;
  notifyEmail: null;
  notifyCellphone: null;
  notifyApnsDevice: null;
  onboardingDashboardCompleted: null;
  displayCurrency: null;
  cpfNumber: null;
  type: string;
  vertical: null;
  ethereumVerificationAddress: null;
  country: string;
  name: string | null;
}

/** GET /v2/account: Wyre's legacy account; fields Rampart has no data for are null or empty. */
export interface LegacyAccount {
  id: string;
  createdAt: EpochMs;
  updatedAt: null;
  referralUrl: null;
  apnsToken: null;
  tangoCardCustomer: null;
  status: string;
  profile: LegacyProfile;
  paymentMethods: unknown[];
  identities: unknown[];
  depositAddresses: Record<string, string>;
  ledgers: LegacyLedger[];
  session: null;
  documents: unknown[];
  srnLimits: unknown[];
  pusherChannel: null;
  email: unknown;
  cellphone: unknown;
  srn: string;
  verified: boolean;
  loginAt: null;
  lastLoginIp: null;
  lastLoginLocation: null;
  totalBalances: Record<string, Amount>;
  availableBalances: Record<string, Amount>;
  type: string;
}
