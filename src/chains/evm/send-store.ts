import type { Queryable } from '../../platform/db/pool.ts';

/** The SQL of EVM sends (`evm_nonces`, `evm_sends`, `evm_send_txs`); the rules live in sender.ts. */

/**
 * One sender per chain at a time, across every worker process: a session advisory lock, which
 * PostgreSQL drops with the connection when its holder dies (SIGKILL included).
 */
export async function tryLockChain(q: Queryable, chain: string): Promise<boolean> {
  const { rows } = await q.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_lock(hashtext('rampart.evm-sender'), hashtext($1)) AS locked`,
    [chain],
  );
  return rows[0]!.locked;
}

export async function unlockChain(q: Queryable, chain: string): Promise<void> {
  await q.query(`SELECT pg_advisory_unlock(hashtext('rampart.evm-sender'), hashtext($1))`, [chain]);
}

/** A queued send of `chain_sends` that has no nonce yet. */
export interface UnsignedSend {
  reference: string;
  address: string;
  currency: string;
  amount: string;
  created_at_ms: number;
}

export async function sendsWithoutNonce(q: Queryable, chain: string, limit: number): Promise<UnsignedSend[]> {
  const { rows } = await q.query<UnsignedSend>(
    `SELECT c.reference, c.address, c.currency, c.amount::text AS amount,
       (extract(epoch FROM c.created_at) * 1000)::float8 AS created_at_ms
     FROM chain_sends c
     WHERE c.chain = $1 AND c.status = 'QUEUED'
       AND NOT EXISTS (SELECT 1 FROM evm_sends e WHERE e.reference = c.reference)
     ORDER BY c.created_at, c.reference LIMIT $2`,
    [chain, limit],
  );
  return rows;
}

/**
 * Takes the hot wallet's next nonce (at least `nodeNext`, the node's count, so a nonce the wallet
 * used elsewhere is skipped) and records the send with it, in the caller's transaction: the
 * nonces row stays locked until it commits, so two workers never get the same nonce. Returns
 * undefined when the send already has its nonce (another worker got there first).
 */
export async function allocateNonce(
  q: Queryable,
  send: { reference: string; chain: string; from: string; nodeNext: number },
): Promise<number | undefined> {
  const next = await q.query<{ next_nonce: string }>(
    `INSERT INTO evm_nonces (chain, address, next_nonce) VALUES ($1, $2, $3)
     ON CONFLICT (chain, address) DO UPDATE SET next_nonce = GREATEST(evm_nonces.next_nonce, EXCLUDED.next_nonce)
     RETURNING next_nonce::text`,
    [send.chain, send.from, send.nodeNext],
  );
  const { rows } = await q.query<{ nonce: string }>(
    `WITH s AS (
       INSERT INTO evm_sends (reference, chain, from_address, nonce) VALUES ($1, $2, $3, $4)
       ON CONFLICT (reference) DO NOTHING
       RETURNING nonce
     )
     UPDATE evm_nonces SET next_nonce = s.nonce + 1 FROM s
     WHERE evm_nonces.chain = $2 AND evm_nonces.address = $3
     RETURNING s.nonce::text AS nonce`,
    [send.reference, send.chain, send.from, next.rows[0]!.next_nonce],
  );
  return rows[0] ? Number(rows[0].nonce) : undefined;
}

export interface SignedTx {
  hash: string;
  reference: string;
  raw: string;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Stores a signed transaction; it is broadcast only after this commits. */
export async function insertSignedTx(q: Queryable, tx: SignedTx): Promise<void> {
  await q.query(
    `INSERT INTO evm_send_txs (hash, reference, raw, gas_limit, max_fee_per_gas, max_priority_fee_per_gas)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      tx.hash,
      tx.reference,
      tx.raw,
      tx.gasLimit.toString(),
      tx.maxFeePerGas.toString(),
      tx.maxPriorityFeePerGas.toString(),
    ],
  );
}

export async function markBroadcast(q: Queryable, hash: string): Promise<void> {
  await q.query('UPDATE evm_send_txs SET broadcast_at = now() WHERE hash = $1 AND broadcast_at IS NULL', [
    hash,
  ]);
}

export interface StoredTx {
  hash: `0x${string}`;
  raw: `0x${string}`;
  gas_limit: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  signed_at_ms: number;
  broadcast: boolean;
}

/** A send with its nonce, waiting for its outcome, with its transactions (oldest first). */
export interface PendingSend {
  reference: string;
  address: string;
  currency: string;
  amount: string;
  nonce: number;
  from_address: string;
  txs: StoredTx[];
}

export async function pendingSends(q: Queryable, chain: string): Promise<PendingSend[]> {
  const { rows } = await q.query<PendingSend & { nonce: string }>(
    `SELECT e.reference, c.address, c.currency, c.amount::text AS amount, e.nonce::text AS nonce,
       e.from_address,
       (SELECT jsonb_agg(jsonb_build_object(
          'hash', t.hash, 'raw', t.raw, 'gas_limit', t.gas_limit::text,
          'max_fee_per_gas', t.max_fee_per_gas::text,
          'max_priority_fee_per_gas', t.max_priority_fee_per_gas::text,
          'signed_at_ms', (extract(epoch FROM t.signed_at) * 1000)::float8,
          'broadcast', t.broadcast_at IS NOT NULL) ORDER BY t.signed_at, t.hash)
        FROM evm_send_txs t WHERE t.reference = e.reference) AS txs
     FROM evm_sends e JOIN chain_sends c ON c.reference = e.reference
     WHERE e.chain = $1 AND e.state = 'PENDING'
     ORDER BY e.nonce`,
    [chain],
  );
  return rows.map((row) => ({ ...row, nonce: Number(row.nonce), txs: row.txs ?? [] }));
}

/** The send's outcome is delivered: it is no longer followed. */
export async function markDone(q: Queryable, reference: string): Promise<void> {
  await q.query(`UPDATE evm_sends SET state = 'DONE' WHERE reference = $1`, [reference]);
}
