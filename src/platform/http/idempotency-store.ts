import type { Queryable, Tx } from '../db/pool.ts';

/**
 * The SQL of the Idempotency-Key table (`idempotency_keys`); the rules (fingerprints, scopes,
 * sealing, replays) live in idempotency.ts. Owns no database functions.
 */

export interface StoredAnswer {
  scope: string;
  request_hash: string;
  response_status: number;
  response_body: string | null;
  response_sealed: Buffer | null;
}

export interface NewAnswer {
  scope: string;
  key: string;
  requestHash: string;
  status: number;
  /** The answer in clear, or null when it is stored sealed. */
  body: string | null;
  sealed: Buffer | null;
  createdAtMs: number;
  expiresAtMs: number;
}

/**
 * The key's transaction-scoped advisory lock, tried without waiting: false when the same key is
 * in hand in another transaction.
 */
export async function tryLockKey(tx: Tx, scope: string, key: string): Promise<boolean> {
  const { rows } = await tx.query<{ locked: boolean }>(
    'SELECT pg_try_advisory_xact_lock(hashtext($1), hashtext($2)) AS locked',
    [scope, key],
  );
  return rows[0]?.locked === true;
}

/**
 * The live answer stored for the key under any of `scopes`, the first scope's preferred; an
 * answer expired by `nowMs` is deleted first, so the key can be used again.
 */
export async function findLiveAnswer(
  tx: Tx,
  scopes: string[],
  key: string,
  nowMs: number,
): Promise<StoredAnswer | undefined> {
  await tx.query(
    `DELETE FROM idempotency_keys
     WHERE scope = ANY($1::text[]) AND key = $2 AND expires_at <= to_timestamp($3 / 1000.0)`,
    [scopes, key, nowMs],
  );
  const { rows } = await tx.query<StoredAnswer>(
    `SELECT scope, request_hash, response_status, response_body, response_sealed FROM idempotency_keys
     WHERE scope = ANY($1::text[]) AND key = $2 ORDER BY scope = $1[1] DESC LIMIT 1`,
    [scopes, key],
  );
  return rows[0];
}

export async function storeAnswer(tx: Tx, answer: NewAnswer): Promise<void> {
  await tx.query(
    `INSERT INTO idempotency_keys
       (scope, key, request_hash, response_status, response_body, response_sealed, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, to_timestamp($7 / 1000.0), to_timestamp($8 / 1000.0))`,
    [
      answer.scope,
      answer.key,
      answer.requestHash,
      answer.status,
      answer.body,
      answer.sealed,
      answer.createdAtMs,
      answer.expiresAtMs,
    ],
  );
}

/** Housekeeping's hourly purge of the keys past their lifetime. */
export async function purgeExpiredIdempotencyKeys(q: Queryable): Promise<void> {
  await q.query('DELETE FROM idempotency_keys WHERE expires_at <= now()');
}
