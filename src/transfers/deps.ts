import type { CallbackUrlDeps } from '../callbacks/url-policy.ts';
import type { ChainsDeps } from '../chains/port.ts';
import type { PricingDeps } from '../pricing/service.ts';
import type { SettledTransfers } from './service.ts';

/**
 * What the transfer functions are given besides the base context: the chains (withdrawals and
 * deposits), prices (exchange quotes), the callback URL rules (notifyUrl) and the grouping of
 * settled transfers created at the same moment.
 */
export interface TransfersDeps extends ChainsDeps, PricingDeps, CallbackUrlDeps {
  settledTransfers: SettledTransfers;
}
