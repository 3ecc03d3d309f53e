import { type BalancesJson, balancesJsonOf } from '../ledger/index.ts';
import type { Queryable } from '../platform/db/pool.ts';

/** The SQL of `wallets` (migration 036); rules live in service.ts. */

export type WalletType = 'DEFAULT' | 'ENTERPRISE' | 'SAVINGS';

export interface WalletRow {
  id: string;
  partner_id: string;
  owner: string;
  name: string;
  type: WalletType;
  callback_url: string | null;
  notes: string | null;
  verification_data: unknown;
  pusher_channel: string;
  created_at: Date;
}

/** A row with its ledger balances, read in the same statement (ledger_balances_json_of, migration 015). */
export interface WalletWithBalances extends WalletRow {
  balances: BalancesJson;
}

export type NewWallet = WalletRow;

const COLUMNS = `id, partner_id, owner, name, type, callback_url, notes, verification_data, pusher_channel, created_at`;

/** Every row of a read, with the balances of `wallet:<id>`. */
const WITH_BALANCES = `SELECT w.*, b.balances FROM selected w
  LEFT JOIN LATERAL ${balancesJsonOf("ARRAY['wallet:' || w.id]")} b ON true`;

/**
 * Inserts the wallets together, in the order given (their `seq`): a taken name refuses the
 * statement, so all or none are stored.
 */
export async function insertWallets(q: Queryable, wallets: NewWallet[]): Promise<void> {
  await q.query(
    `INSERT INTO wallets (${COLUMNS})
     SELECT ${COLUMNS} FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (id text, partner_id text,
       owner text, name text, type text, callback_url text, notes text, verification_data jsonb,
       pusher_channel text, created_at timestamptz)) WITH ORDINALITY AS w(${COLUMNS}, sent)
     ORDER BY sent`,
    [JSON.stringify(wallets)],
  );
}

/** The names among `names` that the owner's live wallets already use. */
export async function takenNames(
  q: Queryable,
  partnerId: string,
  owner: string,
  names: string[],
): Promise<Set<string>> {
  const { rows } = await q.query<{ name: string }>(
    `SELECT name FROM wallets
     WHERE partner_id = $1 AND owner = $2 AND name = ANY($3::text[]) AND deleted_at IS NULL`,
    [partnerId, owner, names],
  );
  return new Set(rows.map((row) => row.name));
}

/** A live wallet of the partner; `owner` (an SRN) narrows to that owner's. */
export async function findWallet(
  q: Queryable,
  partnerId: string,
  id: string,
  owner: string | null,
): Promise<WalletWithBalances | undefined> {
  const { rows } = await q.query<WalletWithBalances>(
    `WITH selected AS (
       SELECT ${COLUMNS} FROM wallets
       WHERE partner_id = $1 AND id = $2 AND deleted_at IS NULL AND ($3::text IS NULL OR owner = $3))
     ${WITH_BALANCES}`,
    [partnerId, id, owner],
  );
  return rows[0];
}

export async function findWalletByName(
  q: Queryable,
  partnerId: string,
  owner: string,
  name: string,
): Promise<WalletWithBalances | undefined> {
  const { rows } = await q.query<WalletWithBalances>(
    `WITH selected AS (
       SELECT ${COLUMNS} FROM wallets
       WHERE partner_id = $1 AND owner = $2 AND name = $3 AND deleted_at IS NULL)
     ${WITH_BALANCES}`,
    [partnerId, owner, name],
  );
  return rows[0];
}

/** Locks a live wallet for a change (update, delete); `owner` as in findWallet. */
export async function lockWallet(
  q: Queryable,
  partnerId: string,
  id: string,
  owner: string | null,
): Promise<WalletRow | undefined> {
  const { rows } = await q.query<WalletRow>(
    `SELECT ${COLUMNS} FROM wallets
     WHERE partner_id = $1 AND id = $2 AND deleted_at IS NULL AND ($3::text IS NULL OR owner = $3)
     FOR UPDATE`,
    [partnerId, id, owner],
  );
  return rows[0];
}

/** A partner's live wallets, of one owner when $2 is not null; both pages select them so. */
const LIVE_OF_OWNER = `SELECT ${COLUMNS}, seq FROM wallets
       WHERE partner_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR owner = $2)`;

/** A page of live wallets in creation order; `owner` as in findWallet. */
export async function pageWallets(
  q: Queryable,
  partnerId: string,
  owner: string | null,
  offset: number,
  limit: number,
): Promise<WalletWithBalances[]> {
  const { rows } = await q.query<WalletWithBalances>(
    `WITH selected AS (
       ${LIVE_OF_OWNER}
       ORDER BY seq OFFSET $3 LIMIT $4)
     ${WITH_BALANCES} ORDER BY w.seq`,
    [partnerId, owner, offset, limit],
  );
  return rows;
}

/** pageWallets after the wallet `after` (keyset): an unknown or foreign `after` gives none. */
export async function walletPageAfter(
  q: Queryable,
  partnerId: string,
  owner: string | null,
  after: string | undefined,
  limit: number,
): Promise<WalletWithBalances[]> {
  const { rows } = await q.query<WalletWithBalances>(
    `WITH selected AS (
       ${LIVE_OF_OWNER}
         AND ($3::text IS NULL OR seq > (SELECT seq FROM wallets WHERE id = $3 AND partner_id = $1))
       ORDER BY seq LIMIT $4)
     ${WITH_BALANCES} ORDER BY w.seq`,
    [partnerId, owner, after ?? null, limit],
  );
  return rows;
}

export interface WalletChanges {
  name: string;
  callbackUrl: string | null;
  notes: string | null;
  verificationData: unknown;
}

export async function updateWallet(q: Queryable, id: string, changes: WalletChanges): Promise<void> {
  await q.query(
    `UPDATE wallets SET name = $2, callback_url = $3, notes = $4, verification_data = $5::jsonb
     WHERE id = $1`,
    [
      id,
      changes.name,
      changes.callbackUrl,
      changes.notes,
      changes.verificationData === null ? null : JSON.stringify(changes.verificationData),
    ],
  );
}

export async function markDeleted(q: Queryable, id: string, at: Date): Promise<void> {
  await q.query('UPDATE wallets SET deleted_at = $2 WHERE id = $1', [id, at]);
}

/** The owners of the partner's live wallets among `ids` (for transfers: who may draw on them). */
export async function liveWalletOwners(
  q: Queryable,
  partnerId: string,
  ids: string[],
): Promise<Map<string, string>> {
  const { rows } = await q.query<{ id: string; owner: string }>(
    'SELECT id, owner FROM wallets WHERE partner_id = $1 AND id = ANY($2::text[]) AND deleted_at IS NULL',
    [partnerId, ids],
  );
  return new Map(rows.map((row) => [row.id, row.owner]));
}

/** For the ledger's owner check, across partners (the operator credits any live wallet). */
export async function liveWalletExists(q: Queryable, id: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM wallets WHERE id = $1 AND deleted_at IS NULL', [id]);
  return rows.length > 0;
}
