import { type BalancesJson, balancesFromJson, balancesJsonOf } from '../ledger/index.ts';
import { rowsInInputOrder } from '../platform/db/grouped-writer.ts';
import type { Queryable } from '../platform/db/pool.ts';
import type { AccountRow } from './accounts-store.ts';
import type { CallerAccount } from './types.ts';

/** What authentication needs of a key (the listing and management reads select more). */
export interface KeyRow {
  api_key: string;
  account_id: string | null;
  partner_id: string | null;
  type: 'FULL' | 'READONLY';
  ip_whitelist: string[];
  /** Set for a session token tied to a user: every request is confined to that user (decision 95). */
  user_id: string | null;
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

/** The key's columns and its account as one JSON value (see CallerAccount.row). */
const KEY_COLUMNS = `k.api_key, k.account_id, k.partner_id, k.type, k.ip_whitelist, k.user_id,
  CASE WHEN a.id IS NULL THEN NULL ELSE json_build_object(
    'id', a.id, 'partner_id', a.partner_id, 'parent_id', a.parent_id, 'kind', a.kind, 'name', a.name,
    'status', a.status, 'type', a.type, 'country', a.country, 'users_api_enabled', a.users_api_enabled,
    'referrer_account_id', a.referrer_account_id, 'profile_fields', a.profile_fields, 'created_at', a.created_at)
  END AS account_row`;

/** What KEY_COLUMNS answers and the balances, selected from LIVE_WITH_BALANCES. */
const KEY_OUTPUT = `${[
  'api_key',
  'account_id',
  'partner_id',
  'type',
  'ip_whitelist',
  'user_id',
  'account_row',
]
  .map((column) => `live.${column}`)
  .join(', ')}, b.balances AS own_balances`;

/**
 * Over a CTE `live` of looked-up keys (KEY_COLUMNS, `with_balances`), the final SELECT's FROM:
 * each row with its account's ledger balances when asked for, read for the whole group by one
 * call of the ledger's function (migration 015). GET of one's own account then needs no second
 * round trip.
 */
const LIVE_WITH_BALANCES = `live
  LEFT JOIN ${balancesJsonOf(`ARRAY(
    SELECT 'account:' || account_id FROM live WHERE with_balances AND account_id IS NOT NULL
  )`)} AS b ON live.with_balances AND b.owner = 'account:' || live.account_id`;

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

/** A live key's sealed signing secret by the key's id (the secret cache's miss path). */
export async function findLiveKeySecret(q: Queryable, apiKey: string): Promise<Buffer | undefined> {
  const { rows } = await q.query<{ secret_sealed: Buffer }>(
    'SELECT secret_sealed FROM api_keys WHERE api_key = $1 AND deleted_at IS NULL',
    [apiKey],
  );
  return rows[0]?.secret_sealed;
}

export interface BearerLookup {
  secretHash: string;
  withBalances: boolean;
}

/**
 * Bearer authentication of many requests in one round trip (GroupedCalls in authenticate.ts):
 * the live key whose secret hashes to each `secretHash`, in input order; undefined for none.
 */
export async function findLiveKeysBySecretHash(
  q: Queryable,
  lookups: readonly BearerLookup[],
): Promise<(KeyWithAccount | undefined)[]> {
  const { rows } = await q.query<JoinedRow & { ord: number }>(
    `WITH live AS (
       SELECT r.ord, r.with_balances, ${KEY_COLUMNS}
       FROM unnest($1::text[], $2::boolean[]) WITH ORDINALITY AS r(secret_hash, with_balances, ord)
       JOIN api_keys k ON k.secret_hash = r.secret_hash AND k.deleted_at IS NULL
       LEFT JOIN accounts a ON a.id = k.account_id)
     SELECT live.ord, ${KEY_OUTPUT} FROM ${LIVE_WITH_BALANCES}`,
    [lookups.map((lookup) => lookup.secretHash), lookups.map((lookup) => lookup.withBalances)],
  );
  return rowsInInputOrder(rows, lookups.length).map((row) => {
    if (!row) return undefined;
    const { ord: _ord, ...joined } = row;
    return withAccount(joined);
  });
}

export interface SignatureUse {
  apiKey: string;
  /** Lower-case hex. */
  signature: string;
  expiresAtMs: number;
  signedAtMs: number;
  /** The request's HTTP method (upper-case, as Node parses it). */
  method: string;
  /** The client's address: request.ip as the trust-proxy setting resolves it, IPv4-mapped unwrapped. */
  address: string;
  withBalances: boolean;
}

export type RecordedUse = KeyWithAccount & { accepted: boolean; signedBeforeStart: boolean };

/**
 * Signed requests whose secrets we already hold, many in one round trip (GroupedCalls in
 * authenticate.ts): records each signature's first use (its method and client address) only
 * while its key is still live, and returns the key's current state, in input order; no row
 * (undefined) means the key is gone.
 *
 * `accepted` is true for a signature's first use, and for an identical GET repeated from the
 * address of a first use that was a GET: the signature covers the URL and body but not the
 * method, so the record binds it, and polling clients whose timestamps are whole seconds send
 * one signature several times. Any other later use is a replay (false): another method (a signed
 * GET sent as DELETE), another address, or a repeat of anything but a GET. Records without a
 * method (written before migration 032, or in signature_replays_legacy) are not GETs.
 *
 * One INSERT … ON CONFLICT decides it atomically across processes: a first use inserts; a
 * repeat locks the existing row, waiting for its inserter to commit, and is returned by the
 * update only when the row allows it. The update moves expires_at to the later of the two
 * windows, so a repeat through a process with a longer window keeps the record that long.
 * Within one group only the group's first use of a signature goes to the INSERT (a statement
 * cannot update one row twice); the group's other uses of it are accepted only if that one was
 * and both it and they are GETs from one address. The INSERT takes the signatures in sorted
 * order, so two groups never wait on each other's rows in a cycle.
 *
 * Run on the async-commit pool: a database crash may lose the last instant of replay records,
 * so a signature timestamped at or before the database's start is never accepted
 * (`signedBeforeStart`) — every record a crash could have lost belongs to such a signature.
 */
export async function recordSignatureUses(
  q: Queryable,
  uses: readonly SignatureUse[],
): Promise<(RecordedUse | undefined)[]> {
  const { rows } = await q.query<
    JoinedRow & { ord: number; accepted: boolean; signed_before_start: boolean }
  >(
    `WITH r AS (
       SELECT r.*, to_timestamp(r.signed_ms / 1000.0) <= pg_postmaster_start_time() AS before_start
       FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::boolean[])
            WITH ORDINALITY AS r(api_key, signature, expires_ms, signed_ms, method, address, with_balances, ord)),
     live AS (
       SELECT r.ord, r.signature, r.signed_ms, r.expires_ms, r.method, r.address, r.before_start, r.with_balances,
         ${KEY_COLUMNS}
       FROM r JOIN api_keys k ON k.api_key = r.api_key AND k.deleted_at IS NULL
       LEFT JOIN accounts a ON a.id = k.account_id),
     first_uses AS (
       SELECT DISTINCT ON (signature) ord, signature, signed_ms, expires_ms, method, address
       FROM live WHERE NOT before_start
       ORDER BY signature, ord),
     used AS (
       INSERT INTO signature_replays AS s (signed_at, signature, expires_at, method, address)
       SELECT to_timestamp(f.signed_ms / 1000.0), f.signature, to_timestamp(f.expires_ms / 1000.0), f.method, f.address
       FROM first_uses f
       WHERE NOT EXISTS (SELECT 1 FROM signature_replays_legacy l WHERE l.signature = f.signature)
       ORDER BY f.signature
       ON CONFLICT (signed_at, signature) DO UPDATE SET expires_at = greatest(s.expires_at, excluded.expires_at)
         WHERE s.method = 'GET' AND excluded.method = 'GET' AND s.address = excluded.address
       RETURNING signature)
     SELECT live.ord, ${KEY_OUTPUT}, live.before_start AS signed_before_start,
       used.signature IS NOT NULL
         AND (f.ord = live.ord OR (f.method = 'GET' AND live.method = 'GET' AND f.address = live.address)) AS accepted
     FROM ${LIVE_WITH_BALANCES}
     LEFT JOIN first_uses f ON f.signature = live.signature
     LEFT JOIN used ON used.signature = f.signature`,
    [
      uses.map((use) => use.apiKey),
      uses.map((use) => use.signature),
      uses.map((use) => use.expiresAtMs),
      uses.map((use) => use.signedAtMs),
      uses.map((use) => use.method),
      uses.map((use) => use.address),
      uses.map((use) => use.withBalances),
    ],
  );
  return rowsInInputOrder(rows, uses.length).map((row) => {
    if (!row) return undefined;
    const { ord: _ord, accepted, signed_before_start, ...joined } = row;
    return { ...withAccount(joined)!, accepted, signedBeforeStart: signed_before_start };
  });
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

/**
 * Ties an untied session token to the user it just created, under the partner's master account
 * (decision 95); false if the token was tied meanwhile, so a token is tied once.
 */
export async function tieSessionKeyToUser(
  q: Queryable,
  apiKey: string,
  tie: { partnerAccountId: string; userId: string },
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE api_keys SET account_id = $2, partner_id = $2, user_id = $3
     WHERE api_key = $1 AND account_id IS NULL AND deleted_at IS NULL`,
    [apiKey, tie.partnerAccountId, tie.userId],
  );
  return rowCount === 1;
}

export async function setKeyWhitelist(q: Queryable, apiKey: string, ipWhitelist: string[]): Promise<void> {
  await q.query('UPDATE api_keys SET ip_whitelist = $2 WHERE api_key = $1', [apiKey, ipWhitelist]);
}

export interface ListedKey {
  api_key: string;
  type: 'FULL' | 'READONLY';
  description: string;
  ip_whitelist: string[];
  origin: 'operator' | 'api' | 'session';
  created_at: Date;
}

/** An account's live keys, oldest first (the operator's listing; no secret column is read). */
export async function listLiveKeysOfAccount(q: Queryable, accountId: string): Promise<ListedKey[]> {
  const { rows } = await q.query<ListedKey>(
    `SELECT api_key, type, description, ip_whitelist, origin, created_at FROM api_keys
     WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at, api_key`,
    [accountId],
  );
  return rows;
}

/** Deletes one live key of the account (the operator's revocation); false when there is none. */
export async function deleteAccountKey(q: Queryable, accountId: string, apiKey: string): Promise<boolean> {
  const { rowCount } = await q.query(
    'UPDATE api_keys SET deleted_at = now() WHERE api_key = $1 AND account_id = $2 AND deleted_at IS NULL',
    [apiKey, accountId],
  );
  return rowCount === 1;
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

/**
 * Deletes the replay records whose signatures the window no longer lets in. Rows signed more than
 * `windowMs` (this process's window) and a second ago are a range of the primary key; of those,
 * a row a process with a longer window wrote stays until its own expires_at. Run every five
 * seconds (registerFrequentPurges), so the table holds about a window of signed traffic. The
 * records of before migration 025 go as they expire too.
 */
export function purgeExpiredReplays(windowMs: number) {
  return async (q: Queryable): Promise<void> => {
    await q.query(
      `DELETE FROM signature_replays
       WHERE signed_at < now() - make_interval(secs => $1::double precision / 1000 + 1) AND expires_at < now()`,
      [windowMs],
    );
    await q.query('DELETE FROM signature_replays_legacy WHERE expires_at < now()');
  };
}

/**
 * Moves the keys' last-used times forward (identity/key-usage.ts), one statement for many keys.
 * A key another process marked within the last minute is left alone, so across processes too a
 * key's row is updated at most about once a minute.
 */
export async function recordKeysUsed(q: Queryable, uses: readonly { apiKey: string; atMs: number }[]) {
  await q.query(
    `UPDATE api_keys k SET last_used_at = to_timestamp(u.at_ms / 1000.0)
     FROM unnest($1::text[], $2::bigint[]) AS u(api_key, at_ms)
     WHERE k.api_key = u.api_key
       AND (k.last_used_at IS NULL OR k.last_used_at <= to_timestamp(u.at_ms / 1000.0) - interval '1 minute')`,
    [uses.map((use) => use.apiKey), uses.map((use) => use.atMs)],
  );
}

/** A live key with its account and sealed secret, as the dashboard's sign-in checks it. */
export async function findLiveKeyWithSecret(
  q: Queryable,
  apiKey: string,
): Promise<(KeyWithAccount & { secret_sealed: Buffer }) | undefined> {
  const { rows } = await q.query<JoinedRow & { secret_sealed: Buffer }>(
    `SELECT ${KEY_COLUMNS}, k.secret_sealed, NULL AS own_balances
     FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id
     WHERE k.api_key = $1 AND k.deleted_at IS NULL`,
    [apiKey],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { secret_sealed, ...joined } = row;
  return { ...withAccount(joined)!, secret_sealed };
}

/** A live key with its account, by its id (each dashboard request re-reads the key that signed in). */
export async function findLiveKeyWithAccount(
  q: Queryable,
  apiKey: string,
): Promise<KeyWithAccount | undefined> {
  const { rows } = await q.query<JoinedRow>(
    `SELECT ${KEY_COLUMNS}, NULL AS own_balances
     FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id
     WHERE k.api_key = $1 AND k.deleted_at IS NULL`,
    [apiKey],
  );
  return withAccount(rows[0]);
}

export interface AccountKeyRow {
  api_key: string;
  type: 'FULL' | 'READONLY';
  description: string;
  created_at: Date;
  last_used_at: Date | null;
  deleted_at: Date | null;
}

/**
 * A page of an account's API keys, revoked ones included, newest first (keyset: after the key
 * `after`, which must be one of the account's). Users' session tokens are the users', not listed.
 */
export async function pageAccountKeys(
  q: Queryable,
  accountId: string,
  after: string | undefined,
  limit: number,
): Promise<AccountKeyRow[]> {
  const { rows } = await q.query<AccountKeyRow>(
    `SELECT api_key, type, description, created_at, last_used_at, deleted_at FROM api_keys
     WHERE account_id = $1 AND user_id IS NULL
       AND ($2::text IS NULL OR (created_at, api_key) <
         (SELECT created_at, api_key FROM api_keys WHERE api_key = $2 AND account_id = $1))
     ORDER BY created_at DESC, api_key DESC LIMIT $3`,
    [accountId, after ?? null, limit],
  );
  return rows;
}
