import type { Queryable } from '../platform/db/pool.ts';

/**
 * The SQL of the operator console's balance pages. A system owner's balance is spread over
 * stripes (migration 014), so every read sums per (owner, currency); a customer has one row.
 * Pages continue after the last (owner, currency) shown, in the primary key's order.
 */

export interface BalanceLine {
  owner: string;
  currency: string;
  total: string;
  available: string;
}

/** Which customers' balances a page lists: one owner, or every owner of a kind. */
export type BalanceSelection = { owner: string } | { kind: 'account' | 'user' | 'wallet' | 'all' };

/**
 * A page of customer balances (never the house's or the outside world's). A kind starts the scan
 * at its prefix, so `user:` balances do not read every `account:` row first.
 */
export async function pageCustomerBalances(
  q: Queryable,
  selection: BalanceSelection,
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<BalanceLine[]> {
  const where = ['NOT ledger_is_system_owner(owner)'];
  const params: unknown[] = [];
  if ('owner' in selection) {
    params.push(selection.owner);
    where.push(`owner = $${params.length}`);
  } else if (selection.kind !== 'all') {
    params.push(`${selection.kind}:`);
    where.push(`owner > $${params.length} AND owner LIKE $${params.length} || '%'`);
  }
  if (after !== undefined) {
    params.push(after[0], after[1]);
    where.push(`(owner, currency) > ($${params.length - 1}, $${params.length})`);
  }
  params.push(limit);
  const { rows } = await q.query<BalanceLine>(
    `SELECT owner, currency, trim_scale(total)::text AS total, trim_scale(available)::text AS available
     FROM ledger_balances WHERE ${where.join(' AND ')}
     ORDER BY owner, currency LIMIT $${params.length}`,
    params,
  );
  return rows;
}

/** Every house and external balance (a handful of owners), summed over their stripes. */
export async function systemBalances(q: Queryable): Promise<BalanceLine[]> {
  const { rows } = await q.query<BalanceLine>(
    `SELECT owner, currency, trim_scale(sum(total))::text AS total, trim_scale(sum(available))::text AS available
     FROM ledger_balances WHERE ledger_is_system_owner(owner)
     GROUP BY owner, currency ORDER BY owner, currency`,
  );
  return rows;
}
