import type { AppContext } from '../platform/context.ts';
import {
  type BalanceLine,
  type BalanceSelection,
  pageCustomerBalances,
  systemBalances,
} from './listing-store.ts';

/** The console's balance pages: the house's and the outside world's, and customers' a page at a time. */
export function customerBalancesPage(
  ctx: AppContext,
  selection: BalanceSelection,
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<BalanceLine[]> {
  return pageCustomerBalances(ctx.db, selection, after, limit);
}

export function houseBalances(ctx: AppContext): Promise<BalanceLine[]> {
  return systemBalances(ctx.db);
}

export type { BalanceLine, BalanceSelection };
