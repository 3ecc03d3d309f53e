import type { ChainsDeps } from '../chains/index.ts';
import type { PricingDeps } from '../pricing/index.ts';

/**
 * What the reservation rules are given besides the base context: prices and the chains' network.
 * OrdersDeps (service.ts) adds the grouping of reservations stored at the same moment.
 */
export interface OrderRulesDeps extends PricingDeps, ChainsDeps {}
