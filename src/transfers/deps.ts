import type { CallbackUrlDeps } from '../callbacks/url-policy.ts';
import type { ChainsDeps } from '../chains/port.ts';
import type { PricingDeps } from '../pricing/service.ts';

/**
 * What the transfer rules are given besides the base context: the chains (withdrawals and
 * deposits), prices (exchange quotes) and the callback URL rules (notifyUrl). TransfersDeps
 * (service.ts) adds the grouping of settled transfers created at the same moment.
 */
export interface TransferRulesDeps extends ChainsDeps, PricingDeps, CallbackUrlDeps {}
