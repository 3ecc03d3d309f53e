import type { Queryable } from '../platform/db/pool.ts';

/**
 * The SQL of the operator console's partner list: master accounts newest first, a page at a time
 * after the last one shown (keyset on created_at and id, migration 088's partial index).
 */

export interface PartnerRow {
  id: string;
  name: string | null;
  status: string;
  country: string;
  users_api_enabled: boolean;
  created_at: Date;
  /** created_at as PostgreSQL prints it, to the microsecond: the cursor. */
  created_key: string;
}

const COLUMNS = 'id, name, status, country, users_api_enabled, created_at, created_at::text AS created_key';

/** Escapes LIKE's wildcards so an operator's words match themselves only. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * A page of partners. `search` is an account id (exact) or words of the name (case-insensitive,
 * anywhere in it); partners are few next to orders, so the name search reads them in order and
 * filters. The statement's text depends on which inputs are given, never on their values.
 */
export async function pagePartners(
  q: Queryable,
  search: { id?: string | undefined; name?: string | undefined },
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<PartnerRow[]> {
  const where = ["kind = 'master'"];
  const params: unknown[] = [];
  if (search.id !== undefined) {
    params.push(search.id);
    where.push(`id = $${params.length}`);
  }
  if (search.name !== undefined) {
    params.push(containing(search.name));
    where.push(`name ILIKE $${params.length}`);
  }
  if (after !== undefined) {
    params.push(after[0], after[1]);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit);
  const { rows } = await q.query<PartnerRow>(
    `SELECT ${COLUMNS} FROM accounts WHERE ${where.join(' AND ')}
     ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}
