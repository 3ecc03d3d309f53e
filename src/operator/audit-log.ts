import type { AppContext } from '../platform/context.ts';
import { type AuditFilter, type AuditRow, pageAudit } from './store.ts';

/**
 * A page of the operator audit log for the console, newest first, after the cursor of the last
 * row shown. Reads only: the log is append-only.
 */
export function auditPage(
  ctx: AppContext,
  filter: AuditFilter,
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<AuditRow[]> {
  return pageAudit(ctx.db, filter, after, limit);
}
