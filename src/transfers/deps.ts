import type { CallbackUrlDeps } from '../callbacks/url-policy.ts';
import type { ChainsDeps } from '../chains/port.ts';
import type { PricingDeps } from '../pricing/service.ts';

/**
 * What the transfer functions are given besides the base context: the chains (withdrawals and
 * deposits), prices (exchange quotes) and the callback URL rules (notifyUrl).
 */
export interface TransfersDeps extends ChainsDeps, PricingDeps, CallbackUrlDeps {}
