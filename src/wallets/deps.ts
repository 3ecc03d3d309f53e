import type { CallbackUrlDeps } from '../callbacks/index.ts';
import type { assignDepositAddresses } from '../chains/index.ts';

/** What deposit-address assignment is given: the users module says, so wallets follow its needs. */
type DepositAddressDeps = Parameters<typeof assignDepositAddresses>[0];

/**
 * What the wallets functions are given besides the base context: the chains and whatever else
 * deposit addresses need (a wallet gets them as an account or user does), and the callback URL
 * rules its `callbackUrl` is checked against.
 */
export interface WalletsDeps extends DepositAddressDeps, CallbackUrlDeps {}
