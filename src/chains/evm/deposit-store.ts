import type { Db, Queryable } from '../../platform/db/pool.ts';

/**
 * The SQL of EVM deposits (migration 052): deposit keys, the watcher's cursor, credited deposits
 * and sweeps. Rules live in deposit-addresses.ts, watcher.ts and sweeper.ts. Amounts travel as
 * decimal text (base units for balances and sweeps, currency units for deposits).
 */

export interface DepositKeyRow {
  owner: string;
  derivation_index: number;
  address: string;
  native_balance: string;
}

export async function findDepositKey(q: Queryable, chain: string, owner: string) {
  const { rows } = await q.query<DepositKeyRow>(
    'SELECT owner, derivation_index, address, native_balance FROM evm_deposit_keys WHERE chain = $1 AND owner = $2',
    [chain, owner],
  );
  return rows[0];
}

export async function nextDerivationIndex(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ index: string }>("SELECT nextval('evm_deposit_index_seq') AS index");
  return Number(rows[0]!.index);
}

/** Answers false when another transaction gave `owner` its key on `chain` first. */
export async function insertDepositKey(
  q: Queryable,
  key: { chain: string; owner: string; index: number; address: string },
): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO evm_deposit_keys (chain, owner, derivation_index, address) VALUES ($1, $2, $3, $4)
     ON CONFLICT (chain, owner) DO NOTHING`,
    [key.chain, key.owner, key.index, key.address],
  );
  return rowCount === 1;
}

export async function depositKeysOf(q: Queryable, chain: string): Promise<DepositKeyRow[]> {
  const { rows } = await q.query<DepositKeyRow>(
    'SELECT owner, derivation_index, address, native_balance FROM evm_deposit_keys WHERE chain = $1',
    [chain],
  );
  return rows;
}

/** The native balances the watcher read at the end of a range, one statement. */
export async function saveNativeBalances(
  q: Queryable,
  chain: string,
  balances: readonly { address: string; balance: string }[],
): Promise<void> {
  if (balances.length === 0) return;
  await q.query(
    `UPDATE evm_deposit_keys k SET native_balance = b.balance
     FROM unnest($2::text[], $3::numeric[]) AS b(address, balance)
     WHERE k.chain = $1 AND k.address = b.address AND k.native_balance <> b.balance`,
    [chain, balances.map((b) => b.address), balances.map((b) => b.balance)],
  );
}

export async function readCursor(q: Queryable, chain: string): Promise<bigint | undefined> {
  const { rows } = await q.query<{ next_block: string }>(
    'SELECT next_block FROM evm_watch_cursors WHERE chain = $1',
    [chain],
  );
  return rows[0] ? BigInt(rows[0].next_block) : undefined;
}

/** The first cursor of a chain; false when another process set one first. */
export async function startCursor(q: Queryable, chain: string, block: bigint): Promise<boolean> {
  const { rowCount } = await q.query(
    'INSERT INTO evm_watch_cursors (chain, next_block) VALUES ($1, $2) ON CONFLICT (chain) DO NOTHING',
    [chain, block.toString()],
  );
  return rowCount === 1;
}

/**
 * Moves the cursor from `from` to `next`, only if it still is at `from`: false when another
 * watcher moved it meanwhile (its transaction then rolls back whatever it credited).
 */
export async function advanceCursor(
  q: Queryable,
  chain: string,
  from: bigint,
  next: bigint,
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE evm_watch_cursors SET next_block = $3, updated_at = now()
     WHERE chain = $1 AND next_block = $2`,
    [chain, from.toString(), next.toString()],
  );
  return rowCount === 1;
}

export interface DepositRow {
  chain: string;
  depositKey: string;
  address: string;
  owner: string;
  currency: string;
  amount: string;
  blockNumber: string;
  blockHash: string;
  txHash: string | null;
}

/** Inserts the deposits not recorded yet; answers the keys of those it inserted. */
export async function insertDeposits(q: Queryable, deposits: readonly DepositRow[]): Promise<Set<string>> {
  if (deposits.length === 0) return new Set();
  const { rows } = await q.query<{ deposit_key: string }>(
    `INSERT INTO evm_deposits (chain, deposit_key, address, owner, currency, amount, block_number, block_hash, tx_hash)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::numeric[],
                          $7::bigint[], $8::text[], $9::text[])
     ON CONFLICT (chain, deposit_key) DO NOTHING
     RETURNING deposit_key`,
    [
      deposits.map((d) => d.chain),
      deposits.map((d) => d.depositKey),
      deposits.map((d) => d.address),
      deposits.map((d) => d.owner),
      deposits.map((d) => d.currency),
      deposits.map((d) => d.amount),
      deposits.map((d) => d.blockNumber),
      deposits.map((d) => d.blockHash),
      deposits.map((d) => d.txHash),
    ],
  );
  return new Set(rows.map((row) => row.deposit_key));
}

export interface SweepRow {
  chain: string;
  /** The sweep's transaction hash, or a gas top-up's send reference. */
  id: string;
  kind: 'gas' | 'sweep';
  address: string;
  currency: string;
  amount: string;
}

export async function insertSweep(q: Queryable, sweep: SweepRow): Promise<void> {
  await q.query(
    `INSERT INTO evm_sweeps (chain, id, kind, address, currency, amount)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [sweep.chain, sweep.id, sweep.kind, sweep.address, sweep.currency, sweep.amount],
  );
}

export async function openSweeps(q: Queryable, chain: string): Promise<(SweepRow & { createdAt: Date })[]> {
  const { rows } = await q.query<{
    id: string;
    kind: 'gas' | 'sweep';
    address: string;
    currency: string;
    amount: string;
    created_at: Date;
  }>(
    `SELECT id, kind, address, currency, amount, created_at FROM evm_sweeps
     WHERE chain = $1 AND status = 'SENT' ORDER BY created_at`,
    [chain],
  );
  return rows.map((row) => ({
    chain,
    id: row.id,
    kind: row.kind,
    address: row.address,
    currency: row.currency,
    amount: row.amount,
    createdAt: row.created_at,
  }));
}

/**
 * Settles an open sweep or top-up (`chain` null: by its send reference alone, unique to it);
 * false when it was settled already (the caller then books nothing).
 */
export async function settleSweep(
  q: Queryable,
  chain: string | null,
  id: string,
  status: 'CONFIRMED' | 'FAILED',
  fee: string | null,
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE evm_sweeps SET status = $3, fee = $4, settled_at = now()
     WHERE ($1::text IS NULL OR chain = $1) AND id = $2 AND status = 'SENT'`,
    [chain, id, status, fee],
  );
  return rowCount === 1;
}

/**
 * Runs `work` holding the session advisory lock (`lock`, `name`) on one connection of `db`, or
 * answers `busy()` at once when another session holds it: one pass at a time across workers, and
 * the lock goes with the connection if the process dies.
 */
export async function underSessionLock<T>(
  db: Db,
  lock: number,
  name: string,
  work: () => Promise<T>,
  busy: () => T,
): Promise<T> {
  const client = await db.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked',
      [lock, name],
    );
    if (!rows[0]!.locked) return busy();
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [lock, name]);
    }
  } finally {
    client.release();
  }
}
