import type { CallbackUrlDeps } from '../callbacks/index.ts';
import type { ChainsDeps } from '../chains/index.ts';
import type { PricingDeps } from '../pricing/index.ts';
import type { BankTransfersWiring } from './bank-port.ts';

/**
 * What the transfer rules are given besides the base context: the chains (withdrawals and
 * deposits), the bank rail and payment methods (payouts and ACH pulls), prices (exchange quotes)
 * and the callback URL rules (notifyUrl). TransfersDeps (service.ts) adds the grouping of
 * settled transfers created at the same moment.
 */
export interface TransferRulesDeps extends ChainsDeps, PricingDeps, CallbackUrlDeps {
  bankTransfers: BankTransfersWiring;
}
