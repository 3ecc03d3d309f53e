import { balancesFromJson } from '../ledger/index.ts';
import type { Money } from '../platform/money.ts';
import type { WalletType, WalletWithBalances } from './store.ts';

/** The v2 Wallet (docs/contract.md, "Wallets and v2 transfers"). */
export interface WalletView {
  id: string;
  srn: string;
  name: string;
  owner: string;
  status: null;
  type: WalletType;
  callbackUrl: string | null;
  notes: string | null;
  pusherChannel: string;
  depositAddresses: Record<string, string>;
  balances: Record<string, Money>;
  totalBalances: Record<string, Money>;
  availableBalances: Record<string, Money>;
  verificationData: unknown;
  createdAt: Date;
}

export const walletSrn = (id: string) => `wallet:${id}`;

/**
 * `balances` is what the wallet can spend now, its available balances (decision 31); Wyre's
 * wallets showed no status, so `status` is null as theirs was.
 */
export function walletView(row: WalletWithBalances, depositAddresses: Record<string, string>): WalletView {
  const { totalBalances, availableBalances } = balancesFromJson(row.balances ?? []);
  return {
    id: row.id,
    srn: walletSrn(row.id),
    name: row.name,
    owner: row.owner,
    status: null,
    type: row.type,
    callbackUrl: row.callback_url,
    notes: row.notes,
    pusherChannel: row.pusher_channel,
    depositAddresses,
    balances: availableBalances,
    totalBalances,
    availableBalances,
    verificationData: row.verification_data ?? null,
    createdAt: row.created_at,
  };
}
