import type { AppContext } from '../platform/context.ts';
import { type ListedDispute, type ListedOrder, pageDisputes, pageRecentOrders } from './listing-store.ts';
import type { OrderStatus } from './store.ts';

/** The console's order lists: every partner's orders (or one status's), and the card disputes. */
export function recentOrdersPage(
  ctx: AppContext,
  filter: { status?: OrderStatus | undefined },
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<ListedOrder[]> {
  return pageRecentOrders(ctx.db, filter, after, limit);
}

export function disputesPage(
  ctx: AppContext,
  filter: { openOnly: boolean },
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<ListedDispute[]> {
  return pageDisputes(ctx.db, filter, after, limit);
}

export type { ListedDispute, ListedOrder, OrderStatus };
