import type { AccountRow } from './accounts-store.ts';
import { type ProfileFieldView, profileView } from './profile-fields.ts';

/** The Account shape of API.md. Balances and deposit addresses are filled by the ledger and chains modules. */
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

export function accountView(row: AccountRow): AccountView {
  return {
    id: row.id,
    status: row.status,
    type: row.type,
    country: row.country,
    createdAt: row.created_at.getTime(),
    depositAddresses: {},
    totalBalances: {},
    availableBalances: {},
    profileFields: profileView(row.profile_fields),
    subaccount: row.kind === 'subaccount',
  };
}
