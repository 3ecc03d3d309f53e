import type { Queryable } from '../platform/db/pool.ts';

/** The SQL of `chain_sends`; rules live in port.ts and sandbox-chain.ts. Amounts travel as decimal text. */

export interface ChainSendRow {
  reference: string;
  chain: string;
  address: string;
  currency: string;
  amount: string;
  network_fee: string;
  status: 'QUEUED' | 'CONFIRMED' | 'FAILED';
}

/** One send per reference: a repeated request for the same reference is refused by the key. */
export async function insertSend(
  q: Queryable,
  send: {
    reference: string;
    chain: string;
    address: string;
    currency: string;
    amount: string;
    networkFee: string;
  },
) {
  await q.query(
    `INSERT INTO chain_sends (reference, chain, address, currency, amount, network_fee)
     VALUES ($1, $2, $3, $4, $5::numeric, $6::numeric)`,
    [send.reference, send.chain, send.address, send.currency, send.amount, send.networkFee],
  );
}

/** Locks a send still waiting for its outcome; undefined once settled (or unknown). */
export async function lockQueuedSend(q: Queryable, reference: string) {
  const { rows } = await q.query<ChainSendRow>(
    `SELECT reference, chain, address, currency, amount, network_fee, status FROM chain_sends
     WHERE reference = $1 AND status = 'QUEUED' FOR UPDATE`,
    [reference],
  );
  return rows[0];
}

export async function recordOutcome(
  q: Queryable,
  reference: string,
  outcome: { status: 'CONFIRMED' | 'FAILED'; blockchainTx: unknown; failureReason: string | null },
) {
  await q.query(
    `UPDATE chain_sends SET status = $2, blockchain_tx = $3, failure_reason = $4, settled_at = now()
     WHERE reference = $1`,
    [
      reference,
      outcome.status,
      outcome.blockchainTx === null ? null : JSON.stringify(outcome.blockchainTx),
      outcome.failureReason,
    ],
  );
}
