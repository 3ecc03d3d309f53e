import type { Queryable } from '../platform/db/pool.ts';
import { insertJobsFrom } from '../platform/jobs/queue.ts';

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

export interface NewSend {
  reference: string;
  chain: string;
  address: string;
  currency: string;
  amount: string;
  networkFee: string;
}

/** The job that settles the sends, as the backend wants it (sandbox: its simulated chain). */
export interface SettleJob {
  kind: string;
  runAtMs: number;
  maxAttempts: number;
}

/** The settle job of a statement's sends (`s`), when `$7` names its kind (the job queue's insert). */
const SETTLE_JOB_OF_SENDS =
  insertJobsFrom(`SELECT $7::text, jsonb_build_object('references', jsonb_agg(s.reference ORDER BY s.reference)),
       to_timestamp($8::bigint / 1000.0), $9::int
     FROM s WHERE $7::text IS NOT NULL HAVING count(*) > 0`);

/**
 * Sends, one or many, in one statement, with one settle job for all of them when `settle` is
 * given (payload `references`: a worker batch of card orders queues its sends together, and one
 * job instead of one per send is two `jobs` row versions fewer per send, none of them HOT). One
 * send per reference: a repeated request for the same reference is refused by the key.
 */
export async function insertSends(q: Queryable, sends: readonly NewSend[], settle: SettleJob | undefined) {
  await q.query(
    `WITH s AS (
       INSERT INTO chain_sends (reference, chain, address, currency, amount, network_fee)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::numeric[], $6::numeric[])
       RETURNING reference
     )
     ${SETTLE_JOB_OF_SENDS}`,
    [
      sends.map((send) => send.reference),
      sends.map((send) => send.chain),
      sends.map((send) => send.address),
      sends.map((send) => send.currency),
      sends.map((send) => send.amount),
      sends.map((send) => send.networkFee),
      settle?.kind ?? null,
      settle?.runAtMs ?? null,
      settle?.maxAttempts ?? null,
    ],
  );
}

/** Locks the sends still waiting for their outcome, in reference order; settled or unknown ones are left out. */
export async function lockQueuedSends(q: Queryable, references: readonly string[]): Promise<ChainSendRow[]> {
  const { rows } = await q.query<ChainSendRow>(
    `SELECT reference, chain, address, currency, amount, network_fee, status FROM chain_sends
     WHERE reference = ANY($1::text[]) AND status = 'QUEUED' ORDER BY reference FOR UPDATE`,
    [references],
  );
  return rows;
}

export interface SendOutcome {
  reference: string;
  status: 'CONFIRMED' | 'FAILED';
  blockchainTx: unknown;
  failureReason: string | null;
}

/** The sends' outcomes, one statement. */
export async function recordOutcomes(q: Queryable, outcomes: readonly SendOutcome[]) {
  await q.query(
    `UPDATE chain_sends AS s SET status = o.status, blockchain_tx = o.blockchain_tx,
       failure_reason = o.failure_reason, settled_at = now()
     FROM jsonb_to_recordset($1::jsonb) AS o(reference text, status text, blockchain_tx jsonb, failure_reason text)
     WHERE s.reference = ANY($2::text[]) AND s.reference = o.reference`,
    [
      JSON.stringify(
        outcomes.map((outcome) => ({
          reference: outcome.reference,
          status: outcome.status,
          blockchain_tx: outcome.blockchainTx,
          failure_reason: outcome.failureReason,
        })),
      ),
      outcomes.map((outcome) => outcome.reference),
    ],
  );
}

/**
 * Per currency, what the sends on `chain` not settled yet pay (amount and network fee): those of
 * reference type `type`, or every one (null).
 */
export async function unsettledSendTotals(
  q: Queryable,
  chain: string,
  type: string | null,
): Promise<Map<string, string>> {
  const { rows } = await q.query<{ currency: string; total: string }>(
    `SELECT currency, sum(amount + network_fee) AS total FROM chain_sends
     WHERE chain = $1 AND status = 'QUEUED' AND ($2::text IS NULL OR starts_with(reference, $2))
     GROUP BY currency`,
    [chain, type === null ? null : `${type}:`],
  );
  return new Map(rows.map((row) => [row.currency, row.total]));
}

/**
 * Cancels a send still QUEUED (FAILED, reason `cancelled`), answering whether it did; a send the
 * settler locked first is found settled and stays as it is.
 */
export async function cancelQueuedSend(q: Queryable, reference: string, reason: string): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE chain_sends SET status = 'FAILED', failure_reason = $2, settled_at = now()
     WHERE reference = $1 AND status = 'QUEUED'`,
    [reference, reason],
  );
  return rowCount === 1;
}

/** The chain a send of `reference` goes out on, if there is one. */
export async function chainOfSend(q: Queryable, reference: string): Promise<string | undefined> {
  const { rows } = await q.query<{ chain: string }>('SELECT chain FROM chain_sends WHERE reference = $1', [
    reference,
  ]);
  return rows[0]?.chain;
}
