import type { Balances } from '../ledger/index.ts';
import type { AccountRow } from './accounts-store.ts';

/** Who is calling, as established by authentication (before masquerading). */
export interface Caller {
  apiKey: string;
  keyType: 'FULL' | 'READONLY';
  scheme: 'signature' | 'bearer';
  /** Undefined for a decentralized session token that has not created its account yet. */
  account: CallerAccount | undefined;
  ipWhitelist: string[];
  /**
   * Set for a decentralized token tied to a user (decision 95): `account` is then the partner's
   * master account the user belongs to, and every request is confined to this user.
   */
  userId?: string;
}

export interface CallerAccount {
  id: string;
  partnerId: string;
  kind: 'master' | 'subaccount' | 'individual';
  usersApiEnabled: boolean;
  /**
   * The account as read by the authentication query itself: reading the caller's own account
   * needs no second round trip. Same request, so as fresh as a separate read would be.
   */
  row?: AccountRow;
  /** The account's ledger balances, read by the same query on routes that show them (withOwnBalances). */
  balances?: Balances;
}

/**
 * On whose behalf the call acts, after masquerading. Stores take this as their first argument,
 * so every query is filtered by the acting partner unless a store says otherwise.
 */
export interface Scope {
  partnerId: string;
  /** The acting account: the caller's own, or the sub-account it masquerades as. */
  accountId: string;
  /** Set when masquerading as a user. */
  userId?: string;
  caller: Caller;
  masqueraded: boolean;
}

export type AccountKind = CallerAccount['kind'];
