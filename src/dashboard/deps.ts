import type { WalletOrdersDeps } from '../wallet-orders/index.ts';

/**
 * What the dashboard is given: the services its pages read and act through, the same the partner
 * API uses (orders and card orders, transfers, and through the base context the rest).
 */
export type DashboardDeps = WalletOrdersDeps;
