import type { Queryable } from '../platform/db/pool.ts';

/**
 * The operator console's reads of accounts and API keys (docs/contract.md, decision 145): by
 * exact value on indexed columns (migration 085), never a secret.
 */

export interface ConsoleAccountRow {
  id: string;
  partner_id: string;
  parent_id: string | null;
  kind: string;
  name: string | null;
  status: string;
  type: string;
  country: string;
  users_api_enabled: boolean;
  email: string | null;
  created_at: Date;
}

const COLUMNS = `id, partner_id, parent_id, kind, name, status, type, country, users_api_enabled,
  profile_fields -> 'individualEmail' ->> 'value' AS email, created_at`;

export async function consoleAccount(q: Queryable, id: string): Promise<ConsoleAccountRow | undefined> {
  const { rows } = await q.query<ConsoleAccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id]);
  return rows[0];
}

/** Accounts whose `individualEmail` is this address, compared lower-cased (accounts_email). */
export async function consoleAccountsByEmail(q: Queryable, email: string, limit: number) {
  const { rows } = await q.query<ConsoleAccountRow>(
    `SELECT ${COLUMNS} FROM accounts
     WHERE lower(profile_fields -> 'individualEmail' ->> 'value') = lower($1) ORDER BY created_at DESC LIMIT $2`,
    [email, limit],
  );
  return rows;
}

/** Whose an API key is (the key's name only; its secret is never read here). */
export async function consoleKeyOwner(q: Queryable, apiKey: string) {
  const { rows } = await q.query<{
    api_key: string;
    account_id: string | null;
    type: string;
    deleted_at: Date | null;
  }>('SELECT api_key, account_id, type, deleted_at FROM api_keys WHERE api_key = $1', [apiKey]);
  return rows[0];
}
