import type { AppContext } from '../platform/context.ts';
import { type PartnerRow, pagePartners } from './partners-store.ts';

/** An account id as Rampart mints them: the console's search box reads one as an id, anything else as a name. */
const ACCOUNT_ID = /^AC_[0-9A-Z]{1,40}$/;

/**
 * A page of partners (master accounts) for the operator console, newest first. `search` finds a
 * partner by its id or by words of its name.
 */
export function partnersPage(
  ctx: AppContext,
  search: string | undefined,
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<PartnerRow[]> {
  const words = search?.trim() ?? '';
  const by = words === '' ? {} : ACCOUNT_ID.test(words) ? { id: words } : { name: words.slice(0, 100) };
  return pagePartners(ctx.db, by, after, limit);
}

export type { PartnerRow };
