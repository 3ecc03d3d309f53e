import type { Queryable } from '../platform/db/pool.ts';
import type { StoredField } from './profile-fields.ts';
import type { AccountKind } from './types.ts';

export interface AccountRow {
  id: string;
  partner_id: string;
  parent_id: string | null;
  kind: AccountKind;
  name: string | null;
  status: 'OPEN' | 'PENDING' | 'APPROVED' | 'CLOSED';
  type: 'INDIVIDUAL' | 'BUSINESS';
  country: string;
  users_api_enabled: boolean;
  referrer_account_id: string | null;
  profile_fields: Record<string, StoredField>;
  created_at: Date;
}

const COLUMNS = `id, partner_id, parent_id, kind, name, status, type, country, users_api_enabled, referrer_account_id,
  profile_fields, created_at`;

export interface NewAccount {
  id: string;
  partnerId: string;
  parentId: string | null;
  kind: AccountKind;
  name: string | null;
  status: AccountRow['status'];
  type: AccountRow['type'];
  country: string;
  usersApiEnabled: boolean;
  referrerAccountId: string | null;
  profileFields: Record<string, StoredField>;
  webhookSecret: Buffer | null;
  isSandboxDemo?: boolean;
}

export async function insertAccount(q: Queryable, account: NewAccount): Promise<AccountRow> {
  const { rows } = await q.query<AccountRow>(
    `INSERT INTO accounts (id, partner_id, parent_id, kind, name, status, type, country, users_api_enabled,
       referrer_account_id, profile_fields, webhook_secret, is_sandbox_demo)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     RETURNING ${COLUMNS}`,
    [
      account.id,
      account.partnerId,
      account.parentId,
      account.kind,
      account.name,
      account.status,
      account.type,
      account.country,
      account.usersApiEnabled,
      account.referrerAccountId,
      JSON.stringify(account.profileFields),
      account.webhookSecret,
      account.isSandboxDemo ?? false,
    ],
  );
  return rows[0]!;
}

/** An account inside the given partner's tree; undefined for other partners' accounts and unknown ids alike. */
export async function findAccountWithin(q: Queryable, partnerId: string, accountId: string) {
  const { rows } = await q.query<AccountRow>(
    `SELECT ${COLUMNS} FROM accounts WHERE id = $1 AND partner_id = $2`,
    [accountId, partnerId],
  );
  return rows[0];
}

/** Operator-side lookup, across partners. */
export async function findAccountById(q: Queryable, accountId: string) {
  const { rows } = await q.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [accountId]);
  return rows[0];
}

export async function lockAccountWithin(q: Queryable, partnerId: string, accountId: string) {
  const { rows } = await q.query<AccountRow>(
    `SELECT ${COLUMNS} FROM accounts WHERE id = $1 AND partner_id = $2 FOR UPDATE`,
    [accountId, partnerId],
  );
  return rows[0];
}

export async function updateProfileFields(
  q: Queryable,
  accountId: string,
  fields: Record<string, StoredField>,
  status: string,
) {
  const { rows } = await q.query<AccountRow>(
    `UPDATE accounts SET profile_fields = $2, status = $3, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [accountId, JSON.stringify(fields), status],
  );
  return rows[0]!;
}

export async function setUsersApi(q: Queryable, accountId: string, enabled: boolean) {
  const { rows } = await q.query<AccountRow>(
    `UPDATE accounts SET users_api_enabled = $2, updated_at = now() WHERE id = $1 AND kind = 'master' RETURNING ${COLUMNS}`,
    [accountId, enabled],
  );
  return rows[0];
}

export async function findSandboxDemo(q: Queryable) {
  const { rows } = await q.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE is_sandbox_demo`);
  return rows[0];
}

export interface AccessAuditEntry {
  apiKey: string;
  accountId: string;
  target: string;
  method: string;
  route: string;
  outcome: 'allowed' | 'denied';
  at: Date;
}

/** Many masqueraded calls' audit rows in one statement (see GroupedWriter). */
export async function insertAccessAudits(q: Queryable, entries: AccessAuditEntry[]): Promise<void> {
  await q.query(
    `INSERT INTO access_audit (api_key, account_id, target, method, route, outcome, at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])`,
    [
      entries.map((entry) => entry.apiKey),
      entries.map((entry) => entry.accountId),
      entries.map((entry) => entry.target),
      entries.map((entry) => entry.method),
      entries.map((entry) => entry.route),
      entries.map((entry) => entry.outcome),
      entries.map((entry) => entry.at),
    ],
  );
}

/** The partner's sealed callback secret: null when it has none yet; undefined: no such partner account. */
export async function sealedWebhookSecret(
  q: Queryable,
  partnerId: string,
): Promise<Buffer | null | undefined> {
  const { rows } = await q.query<{ webhook_secret: Buffer | null }>(
    'SELECT webhook_secret FROM accounts WHERE id = $1 AND partner_id = id',
    [partnerId],
  );
  return rows[0]?.webhook_secret;
}

/** Stores the sealed secret unless the partner has one: concurrent first uses agree on one secret. */
export async function setWebhookSecretOnce(q: Queryable, partnerId: string, sealed: Buffer): Promise<void> {
  await q.query(
    'UPDATE accounts SET webhook_secret = $2 WHERE id = $1 AND partner_id = id AND webhook_secret IS NULL',
    [partnerId, sealed],
  );
}

/** Replaces the partner's sealed callback secret (its owner's rotation); false: no such partner account. */
export async function replaceWebhookSecret(
  q: Queryable,
  partnerId: string,
  sealed: Buffer,
): Promise<boolean> {
  const { rowCount } = await q.query(
    'UPDATE accounts SET webhook_secret = $2 WHERE id = $1 AND partner_id = id',
    [partnerId, sealed],
  );
  return rowCount === 1;
}
