import { type BalancesJson, balancesFromJson } from '../ledger/service.ts';
import type { Queryable } from '../platform/db/pool.ts';
import type { AccountRow } from './accounts-store.ts';
import type { CallerAccount } from './types.ts';

export interface KeyRow {
  api_key: string;
  account_id: string | null;
  partner_id: string | null;
  type: 'FULL' | 'READONLY';
  description: string;
  ip_whitelist: string[];
  secret_sealed: Buffer;
  created_at: Date;
}

/** A live key with its account, as authentication needs it. */
export interface KeyWithAccount extends KeyRow {
  account: CallerAccount | undefined;
}

interface JoinedRow extends KeyRow {
  /** The whole account row, read in the same round trip (see CallerAccount.row). */
  account_row: (Omit<AccountRow, 'created_at'> & { created_at: string }) | null;
  /** Set only when asked for (`withBalances`): the ledger's balances of the key's account. */
  own_balances: BalancesJson | null;
}

/**
 * The key with its account, and on request the account's ledger balances through the ledger's
 * function (migration 013): GET of one's own account then needs no second round trip.
 */
function keyWithAccount(withBalances: boolean): string {
  const balances = withBalances
    ? `CASE WHEN a.id IS NULL THEN NULL ELSE ledger_balances_json('account:' || a.id) END`
    : 'NULL::json';
  return `
  SELECT k.api_key, k.account_id, k.partner_id, k.type, k.description, k.ip_whitelist, k.secret_sealed, k.created_at,
         CASE WHEN a.id IS NULL THEN NULL ELSE json_build_object(
           'id', a.id, 'partner_id', a.partner_id, 'parent_id', a.parent_id, 'kind', a.kind, 'name', a.name,
           'status', a.status, 'type', a.type, 'country', a.country, 'users_api_enabled', a.users_api_enabled,
           'referrer_account_id', a.referrer_account_id, 'profile_fields', a.profile_fields, 'created_at', a.created_at)
         END AS account_row,
         ${balances} AS own_balances
  FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id`;
}

const KEY_WITH_ACCOUNT = keyWithAccount(false);
const KEY_WITH_ACCOUNT_AND_BALANCES = keyWithAccount(true);

function withAccount(row: JoinedRow | undefined): KeyWithAccount | undefined {
  if (!row) return undefined;
  const { account_row, own_balances, ...key } = row;
  if (!account_row || !key.partner_id) return { ...key, account: undefined };
  const accountRow: AccountRow = { ...account_row, created_at: new Date(account_row.created_at) };
  const account: CallerAccount = {
    id: accountRow.id,
    partnerId: key.partner_id,
    kind: accountRow.kind,
    usersApiEnabled: accountRow.users_api_enabled,
    row: accountRow,
    balances: own_balances ? balancesFromJson(own_balances) : undefined,
  };
  return { ...key, account };
}

/** A live key by its id (signature auth) or by its secret's hash (bearer auth). */
async function findLiveKeyBy(
  q: Queryable,
  column: 'api_key' | 'secret_hash',
  value: string,
  withBalances = false,
) {
  const select = withBalances ? KEY_WITH_ACCOUNT_AND_BALANCES : KEY_WITH_ACCOUNT;
  const { rows } = await q.query<JoinedRow>(`${select} WHERE k.${column} = $1 AND k.deleted_at IS NULL`, [
    value,
  ]);
  return withAccount(rows[0]);
}

export function findLiveKey(q: Queryable, apiKey: string): Promise<KeyWithAccount | undefined> {
  return findLiveKeyBy(q, 'api_key', apiKey);
}

export function findLiveKeyBySecretHash(
  q: Queryable,
  secretHash: string,
  withBalances = false,
): Promise<KeyWithAccount | undefined> {
  return findLiveKeyBy(q, 'secret_hash', secretHash, withBalances);
}

/**
 * One round trip for a signed request whose secret we already hold: records the signature
 * (refused if seen before inside the window) only while the key is still live, and returns the
 * key's current state. `fresh` false means replay; no row means the key is gone.
 *
 * Run on the async-commit pool: a database crash may lose the last instant of replay records,
 * so a signature timestamped at or before the database's start is never accepted
 * (`signedBeforeStart`) — every record a crash could have lost belongs to such a signature.
 */
export async function recordSignatureUse(
  q: Queryable,
  apiKey: string,
  signature: string,
  expiresAtMs: number,
  signedAtMs: number,
  withBalances = false,
): Promise<(KeyWithAccount & { fresh: boolean; signedBeforeStart: boolean }) | undefined> {
  const { rows } = await q.query<JoinedRow & { fresh: boolean; signed_before_start: boolean }>(
    `WITH live AS (${withBalances ? KEY_WITH_ACCOUNT_AND_BALANCES : KEY_WITH_ACCOUNT} WHERE k.api_key = $1 AND k.deleted_at IS NULL),
          started AS (SELECT to_timestamp($4 / 1000.0) <= pg_postmaster_start_time() AS before_start),
          used AS (INSERT INTO signature_replays (signature, expires_at)
                   SELECT $2, to_timestamp($3 / 1000.0) FROM live, started WHERE NOT started.before_start
                   ON CONFLICT (signature) DO NOTHING RETURNING 1)
     SELECT live.*, EXISTS (SELECT 1 FROM used) AS fresh, started.before_start AS signed_before_start
     FROM live, started`,
    [apiKey, signature, expiresAtMs, signedAtMs],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { fresh, signed_before_start, ...joined } = row;
  return { ...withAccount(joined)!, fresh, signedBeforeStart: signed_before_start };
}

export interface NewKey {
  apiKey: string;
  accountId: string | null;
  partnerId: string | null;
  type: 'FULL' | 'READONLY';
  description: string;
  ipWhitelist: string[];
  secretHash: string;
  secretSealed: Buffer;
  origin: 'operator' | 'api' | 'session';
  createdBy: string | null;
}

export async function insertKey(q: Queryable, key: NewKey): Promise<void> {
  await q.query(
    `INSERT INTO api_keys (api_key, account_id, partner_id, type, description, ip_whitelist, secret_hash, secret_sealed,
       origin, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      key.apiKey,
      key.accountId,
      key.partnerId,
      key.type,
      key.description,
      key.ipWhitelist,
      key.secretHash,
      key.secretSealed,
      key.origin,
      key.createdBy,
    ],
  );
}

export async function secretHashExists(q: Queryable, secretHash: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM api_keys WHERE secret_hash = $1', [secretHash]);
  return rows.length > 0;
}

/** Ties an untied session token to the account it just created; false if someone else tied it first. */
export async function tieSessionKey(q: Queryable, apiKey: string, accountId: string): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE api_keys SET account_id = $2, partner_id = $2
     WHERE api_key = $1 AND account_id IS NULL AND deleted_at IS NULL`,
    [apiKey, accountId],
  );
  return rowCount === 1;
}

export async function setKeyWhitelist(q: Queryable, apiKey: string, ipWhitelist: string[]): Promise<void> {
  await q.query('UPDATE api_keys SET ip_whitelist = $2 WHERE api_key = $1', [apiKey, ipWhitelist]);
}

/**
 * Deletes a key within the caller's reach: its own key, a key of its own account, or (a master
 * only) any key of its partner tree. A sub-account's key never reaches its master's or its
 * siblings' keys. False when there is no such live key within reach.
 */
export async function deleteKeyWithin(
  q: Queryable,
  apiKey: string,
  reach: { callerKey: string; accountId: string | null; partnerId: string | null; wholeTree: boolean },
) {
  const { rowCount } = await q.query(
    `UPDATE api_keys SET deleted_at = now()
     WHERE api_key = $1 AND deleted_at IS NULL
       AND (api_key = $2 OR account_id = $3 OR ($4 AND partner_id = $5))`,
    [apiKey, reach.callerKey, reach.accountId, reach.wholeTree, reach.partnerId],
  );
  return rowCount === 1;
}

export async function purgeExpiredReplays(q: Queryable): Promise<void> {
  await q.query('DELETE FROM signature_replays WHERE expires_at < now()');
}
