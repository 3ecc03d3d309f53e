import type { Balances } from '../ledger/index.ts';
import type { AccountRow } from './accounts-store.ts';
import { type ProfileFieldView, profileView } from './profile-fields.ts';

/** The Account shape of docs/contract.md, "Accounts". Balances are the ledger's; deposit addresses chains/deposit-addresses.ts's. */
export interface AccountView {
  id: string;
  status: AccountRow['status'];
  type: AccountRow['type'];
  country: string;
  createdAt: number;
  depositAddresses: Record<string, string>;
  totalBalances: Record<string, unknown>;
  availableBalances: Record<string, unknown>;
  profileFields: ProfileFieldView[];
  subaccount: boolean;
}

const NO_BALANCES: Balances = { totalBalances: {}, availableBalances: {} };

/** `balances` come from the ledger (`balancesOf`); a new account has none. */
export function accountView(
  row: AccountRow,
  balances: Balances = NO_BALANCES,
  depositAddresses: Record<string, string> = {},
): AccountView {
  return {
    id: row.id,
    status: row.status,
    type: row.type,
    country: row.country,
    createdAt: row.created_at.getTime(),
    depositAddresses,
    totalBalances: balances.totalBalances,
    availableBalances: balances.availableBalances,
    profileFields: profileView(row.profile_fields),
    subaccount: row.kind === 'subaccount',
  };
}
