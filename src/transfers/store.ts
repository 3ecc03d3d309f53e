import type { Queryable } from '../platform/db/pool.ts';
import type { StatusHistoryEntry } from './status-history.ts';

/** The SQL of `transfers`; rules live in service.ts and lifecycle.ts. Amounts travel as decimal text. */

export type TransferStatus = 'PREVIEW' | 'UNCONFIRMED' | 'PENDING' | 'COMPLETED' | 'FAILED' | 'EXPIRED';

export interface TransferRow {
  id: string;
  partner_id: string;
  account_id: string;
  owner: string;
  source: string;
  dest: string;
  source_currency: string;
  dest_currency: string;
  source_amount: string;
  source_amount_without_fees: string;
  dest_amount: string;
  network_fee: string;
  exchange_rate: string | null;
  fees: Record<string, string>;
  total_fees: string;
  message: string | null;
  custom_id: string | null;
  status: TransferStatus;
  hold_id: number | null;
  blockchain_tx: Record<string, unknown> | null;
  failure_reason: string | null;
  status_history: StatusHistoryEntry[];
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  cancelled_at: Date | null;
  expires_at: Date;
}

export type NewTransfer = Omit<
  TransferRow,
  'blockchain_tx' | 'failure_reason' | 'cancelled_at' | 'updated_at'
>;

export async function insertTransfer(q: Queryable, t: NewTransfer): Promise<TransferRow> {
  const { rows } = await q.query<TransferRow>(
    `INSERT INTO transfers (id, partner_id, account_id, owner, source, dest, source_currency, dest_currency,
       source_amount, source_amount_without_fees, dest_amount, network_fee, exchange_rate, fees, total_fees,
       message, custom_id, status, hold_id, status_history, created_at, updated_at, completed_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $21, $22, $23)
     RETURNING *`,
    [
      t.id,
      t.partner_id,
      t.account_id,
      t.owner,
      t.source,
      t.dest,
      t.source_currency,
      t.dest_currency,
      t.source_amount,
      t.source_amount_without_fees,
      t.dest_amount,
      t.network_fee,
      t.exchange_rate,
      JSON.stringify(t.fees),
      t.total_fees,
      t.message,
      t.custom_id,
      t.status,
      t.hold_id,
      JSON.stringify(t.status_history),
      t.created_at,
      t.completed_at,
      t.expires_at,
    ],
  );
  return rows[0]!;
}

/** Within the partner; `involving` (an SRN) narrows to transfers that party owns, sends or receives. */
export async function findTransfer(
  q: Queryable,
  partnerId: string,
  id: string,
  involving: string | null,
  lock = false,
): Promise<TransferRow | undefined> {
  const { rows } = await q.query<TransferRow>(
    `SELECT * FROM transfers WHERE partner_id = $1 AND id = $2
       AND ($3::text IS NULL OR owner = $3 OR source = $3 OR dest = $3)${lock ? ' FOR UPDATE' : ''}`,
    [partnerId, id, involving],
  );
  return rows[0];
}

/** For workers (chain outcomes): by id alone, locked. */
export async function lockTransferById(q: Queryable, id: string): Promise<TransferRow | undefined> {
  const { rows } = await q.query<TransferRow>('SELECT * FROM transfers WHERE id = $1 FOR UPDATE', [id]);
  return rows[0];
}

export interface StatusChange {
  status: TransferStatus;
  history: StatusHistoryEntry[];
  at: Date;
  completed?: boolean;
  cancelled?: boolean;
  blockchainTx?: Record<string, unknown>;
  failureReason?: string;
}

/** The new status and its history entries in one statement. */
export async function changeStatus(q: Queryable, id: string, change: StatusChange): Promise<TransferRow> {
  const { rows } = await q.query<TransferRow>(
    `UPDATE transfers SET status = $2, status_history = status_history || $3::jsonb, updated_at = $4,
       completed_at = CASE WHEN $5 THEN $4 ELSE completed_at END,
       cancelled_at = CASE WHEN $6 THEN $4 ELSE cancelled_at END,
       blockchain_tx = coalesce($7::jsonb, blockchain_tx), failure_reason = coalesce($8, failure_reason)
     WHERE id = $1 RETURNING *`,
    [
      id,
      change.status,
      JSON.stringify(change.history),
      change.at,
      change.completed ?? false,
      change.cancelled ?? false,
      change.blockchainTx ? JSON.stringify(change.blockchainTx) : null,
      change.failureReason ?? null,
    ],
  );
  return rows[0]!;
}

/** One UNCONFIRMED transfer past its expiry, locked; SKIP LOCKED so sweeps on several nodes share the work. */
export async function lockOneDueUnconfirmed(q: Queryable, now: Date): Promise<TransferRow | undefined> {
  const { rows } = await q.query<TransferRow>(
    `SELECT * FROM transfers WHERE status = 'UNCONFIRMED' AND expires_at <= $1
     ORDER BY expires_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [now],
  );
  return rows[0];
}

/** A page of history, newest first, with the count of everything visible (previews are quotes, not history). */
export async function pageTransfers(
  q: Queryable,
  partnerId: string,
  involving: string | null,
  offset: number,
  limit: number,
): Promise<{ rows: TransferRow[]; total: number }> {
  const filter = `partner_id = $1 AND status <> 'PREVIEW' AND ($2::text IS NULL OR owner = $2 OR source = $2 OR dest = $2)`;
  const [page, count] = await Promise.all([
    q.query<TransferRow>(
      `SELECT * FROM transfers WHERE ${filter} ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4`,
      [partnerId, involving, offset, limit],
    ),
    q.query<{ total: number }>(`SELECT count(*)::int AS total FROM transfers WHERE ${filter}`, [
      partnerId,
      involving,
    ]),
  ]);
  return { rows: page.rows, total: count.rows[0]!.total };
}
