import {
  queueTransferCreatedCall,
  queueTransfersCreatedCall,
  type TransferCreatedArguments,
  transfersCreatedValues,
} from '../callbacks/index.ts';
import {
  combinedEntries,
  type EntriesArguments,
  type EntryArguments,
  entriesValues,
  type HoldArguments,
  placeHoldCall,
  postEntriesCall,
} from '../ledger/index.ts';
import { batched } from '../platform/db/grouped-transactions.ts';
import { type Param, parameters } from '../platform/db/parameters.ts';
import type { Queryable } from '../platform/db/pool.ts';
import type { StatusHistoryEntry, StoredHistoryEntry } from './status-history.ts';

/** The SQL of `transfers`; rules live in service.ts and lifecycle.ts. Amounts travel as decimal text. */

export type TransferStatus =
  | 'PREVIEW'
  | 'UNCONFIRMED'
  | 'PENDING'
  | 'COMPLETED'
  | 'FAILED'
  | 'EXPIRED'
  | 'REVERSED';

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
  /** Compact entries (historyView shapes them), or whole ones in rows written before. */
  status_history: (StoredHistoryEntry | StatusHistoryEntry)[];
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

/** `INSERT INTO transfers …` of a new row; `holdId` is SQL for hold_id when the statement computes it. */
function insertSql(t: NewTransfer, param: Param, holdId?: string): string {
  const createdAt = param(t.created_at, '::timestamptz');
  return `INSERT INTO transfers (id, partner_id, account_id, owner, source, dest, source_currency, dest_currency,
       source_amount, source_amount_without_fees, dest_amount, network_fee, exchange_rate, fees, total_fees,
       message, custom_id, status, hold_id, status_history, created_at, updated_at, completed_at, expires_at)
     VALUES (${[
       param(t.id),
       param(t.partner_id),
       param(t.account_id),
       param(t.owner),
       param(t.source),
       param(t.dest),
       param(t.source_currency),
       param(t.dest_currency),
       param(t.source_amount, '::numeric'),
       param(t.source_amount_without_fees, '::numeric'),
       param(t.dest_amount, '::numeric'),
       param(t.network_fee, '::numeric'),
       param(t.exchange_rate, '::numeric'),
       param(JSON.stringify(t.fees), '::jsonb'),
       param(t.total_fees, '::numeric'),
       param(t.message),
       param(t.custom_id),
       param(t.status),
       holdId ?? param(t.hold_id, '::bigint'),
       param(JSON.stringify(t.status_history), '::jsonb'),
       createdAt,
       createdAt,
       param(t.completed_at, '::timestamptz'),
       param(t.expires_at, '::timestamptz'),
     ].join(', ')})`;
}

/**
 * What is written with a new transfer that does not settle at once, in the same statement
 * (arguments of the other modules' SQL functions, migration 010): the ledger hold of an
 * UNCONFIRMED one (its id becomes hold_id) and the callbacks of every real one.
 */
export interface CreationEffects {
  hold: HoldArguments | null;
  callbacks: TransferCreatedArguments | null;
}

/**
 * The transfer row and its effects as one statement: atomic without a transaction of its own,
 * one round trip. The hold is placed as the row is inserted; the callbacks run on the inserted
 * row. The text depends only on which effects there are: a handful of prepared statements.
 */
export async function insertTransferWith(
  q: Queryable,
  t: NewTransfer,
  effects: CreationEffects,
): Promise<void> {
  const values: unknown[] = [];
  const param = parameters(values);
  const { hold, callbacks } = effects;
  const holdId = hold ? placeHoldCall(param, hold) : undefined;
  const insert = insertSql(t, param, holdId);
  const queued = callbacks ? queueTransferCreatedCall(param, callbacks) : 'NULL';
  await q.query(
    `WITH created AS (${insert} RETURNING id) SELECT ${queued} AS callbacks FROM created`,
    values,
  );
}

/** A transfer settled at creation (COMPLETED, or PENDING on the chain) and its callbacks. */
export interface SettledTransfer {
  row: NewTransfer;
  callbacks: TransferCreatedArguments;
}

/**
 * `entries`: with the ledger entries ($11…$17), or a record only (order transfers). The rows come
 * as jsonb: json_to_recordset builds a hash of every object's keys per record, where
 * jsonb_to_recordset reads keys already parsed, several times cheaper for a worker batch.
 */
const insertSettledText = (entries: boolean) => `WITH created AS (
    INSERT INTO transfers (id, partner_id, account_id, owner, source, dest, source_currency, dest_currency,
      source_amount, source_amount_without_fees, dest_amount, network_fee, exchange_rate, fees, total_fees,
      message, custom_id, status, status_history, created_at, updated_at, completed_at, expires_at)
    SELECT t.id, t.partner_id, t.account_id, t.owner, t.source, t.dest, t.source_currency, t.dest_currency,
      t.source_amount, t.source_amount_without_fees, t.dest_amount, t.network_fee, t.exchange_rate, t.fees,
      t.total_fees, t.message, t.custom_id, t.status, t.status_history, t.created_at, t.created_at,
      t.completed_at, t.expires_at
    FROM jsonb_to_recordset($1::jsonb) AS t(id text, partner_id text, account_id text, owner text, source text,
      dest text, source_currency text, dest_currency text, source_amount numeric, source_amount_without_fees numeric,
      dest_amount numeric, network_fee numeric, exchange_rate numeric, fees jsonb, total_fees numeric,
      message text, custom_id text, status text, status_history jsonb, created_at timestamptz,
      completed_at timestamptz, expires_at timestamptz)
    RETURNING 1)
  SELECT (SELECT count(*) FROM created) AS created,
    ${queueTransfersCreatedCall(2)} AS callbacks${
      entries
        ? `,
    ${postEntriesCall(11)} AS entries`
        : ''
    }`;
const INSERT_SETTLED = insertSettledText(true);
const INSERT_RECORDED = insertSettledText(false);

/**
 * Settled transfers, one or many, as one statement: their rows, their callbacks, and their
 * ledger entries (last, so balance rows stay locked the shortest time before the commit), all
 * or nothing. `entries[i]` is the settlement of `transfers[i]`; without entries the transfers
 * are records only (card orders' delivery transfers: the order posts the money itself).
 */
export async function insertSettledTransfers(
  q: Queryable,
  transfers: SettledTransfer[],
  entries?: EntriesArguments,
): Promise<void> {
  // The rows as one JSON document (keys are the column names): one parameter, not one array per column.
  const values: unknown[] = [
    JSON.stringify(transfers.map((t) => t.row)),
    ...transfersCreatedValues(transfers.map((t) => t.callbacks)),
  ];
  if (!entries) {
    await q.query(INSERT_RECORDED, values);
    return;
  }
  await q.query(INSERT_SETTLED, [...values, ...entriesValues(entries)]);
}

/** A settled transfer with its settlement entry (entryArguments), as the insert step takes it. */
export interface SettledWrite {
  settled: SettledTransfer;
  entry: EntryArguments;
}

/** Settled transfers with their entries as a step of a transfer's write path: one statement. */
export const insertSettled = batched('transfers.insertSettled', async (q, writes: SettledWrite[]) => {
  await insertSettledTransfers(
    q,
    writes.map((write) => write.settled),
    combinedEntries(writes.map((write) => write.entry)),
  );
  return writes.map(() => undefined);
});

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

/** By the partner's customId (unique among its non-preview transfers); `involving` as in findTransfer. */
export async function findTransferByCustomId(
  q: Queryable,
  partnerId: string,
  customId: string,
  involving: string | null,
): Promise<TransferRow | undefined> {
  const { rows } = await q.query<TransferRow>(
    `SELECT * FROM transfers WHERE partner_id = $1 AND custom_id = $2 AND listed
       AND ($3::text IS NULL OR owner = $3 OR source = $3 OR dest = $3)`,
    [partnerId, customId, involving],
  );
  return rows[0];
}

/** For the public tracker: by id alone, never a preview (a quote is nobody's transfer yet). */
export async function findListedTransferById(q: Queryable, id: string): Promise<TransferRow | undefined> {
  const { rows } = await q.query<TransferRow>('SELECT * FROM transfers WHERE id = $1 AND listed', [id]);
  return rows[0];
}

/** For workers (chain outcomes): by id alone, locked. */
export async function lockTransferById(q: Queryable, id: string): Promise<TransferRow | undefined> {
  const { rows } = await q.query<TransferRow>('SELECT * FROM transfers WHERE id = $1 FOR UPDATE', [id]);
  return rows[0];
}

/** The hold a transfer now waits on (an ACH pull's pending funds replace its confirmation hold). */
export async function setTransferHold(q: Queryable, id: string, holdId: number): Promise<void> {
  await q.query('UPDATE transfers SET hold_id = $2 WHERE id = $1', [id, holdId]);
}

export interface StatusChange {
  status: TransferStatus;
  history: StoredHistoryEntry[];
  at: Date;
  completed?: boolean;
  cancelled?: boolean;
  blockchainTx?: Record<string, unknown>;
  failureReason?: string;
}

/** The new status and its history entries in one statement (changeStatuses with one). */
export async function changeStatus(q: Queryable, id: string, change: StatusChange): Promise<TransferRow> {
  const [row] = await changeStatuses(q, [{ id, change }]);
  return row!;
}

/**
 * New statuses and their history entries for one or many transfers, one statement; answers the
 * changed rows (in no particular order).
 */
export async function changeStatuses(
  q: Queryable,
  changes: readonly { id: string; change: StatusChange }[],
): Promise<TransferRow[]> {
  const { rows } = await q.query<TransferRow>(`${STATUS_UPDATE} RETURNING t.*`, statusUpdateValues(changes));
  return rows;
}

/**
 * changeStatuses for the transfers still in status `from` whose source starts with `sourcePrefix`
 * (any other is left as it is), for callers that need nothing back: no row is read back and
 * parsed, and none is locked first. The UPDATE locks each row it changes and checks the
 * condition again on the row's latest version, so a change another transaction committed
 * meanwhile is seen and that row skipped.
 */
export async function updateStatusesFrom(
  q: Queryable,
  changes: readonly { id: string; change: StatusChange }[],
  from: TransferRow['status'],
  sourcePrefix: string,
): Promise<void> {
  await q.query(STATUS_UPDATE_FROM, [...statusUpdateValues(changes), from, sourcePrefix]);
}

const STATUS_UPDATE = `UPDATE transfers AS t SET status = c.status, status_history = t.status_history || c.history,
       updated_at = c.at,
       completed_at = CASE WHEN c.completed THEN c.at ELSE t.completed_at END,
       cancelled_at = CASE WHEN c.cancelled THEN c.at ELSE t.cancelled_at END,
       blockchain_tx = coalesce(c.blockchain_tx, t.blockchain_tx), failure_reason = coalesce(c.failure_reason, t.failure_reason)
     FROM jsonb_to_recordset($1::jsonb) AS c(id text, status text, history jsonb, at timestamptz, completed boolean,
       cancelled boolean, blockchain_tx jsonb, failure_reason text)
     WHERE t.id = ANY($2::text[]) AND t.id = c.id`;

const STATUS_UPDATE_FROM = `${STATUS_UPDATE} AND t.status = $3 AND starts_with(t.source, $4::text)`;

function statusUpdateValues(changes: readonly { id: string; change: StatusChange }[]): unknown[] {
  const rows = changes.map(({ id, change }) => ({
    id,
    status: change.status,
    history: change.history,
    at: change.at,
    completed: change.completed ?? false,
    cancelled: change.cancelled ?? false,
    blockchain_tx: change.blockchainTx ?? null,
    failure_reason: change.failureReason ?? null,
  }));
  return [JSON.stringify(rows), changes.map((change) => change.id)];
}

/** One UNCONFIRMED transfer past its expiry, locked; SKIP LOCKED so sweeps on several nodes share the work. */
export async function lockOneDueUnconfirmed(q: Queryable, now: Date): Promise<TransferRow | undefined> {
  const { rows } = await q.query<TransferRow>(
    `SELECT * FROM transfers WHERE awaiting_confirmation AND expires_at <= $1
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
  const filter = `partner_id = $1 AND listed AND ($2::text IS NULL OR owner = $2 OR source = $2 OR dest = $2)`;
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

/** pageTransfers' rows after the transfer `after` (keyset, no count): an unknown or foreign `after` gives none. */
export async function transferPageAfter(
  q: Queryable,
  partnerId: string,
  involving: string | null,
  after: string | undefined,
  limit: number,
): Promise<TransferRow[]> {
  const { rows } = await q.query<TransferRow>(
    `SELECT * FROM transfers
     WHERE partner_id = $1 AND listed AND ($2::text IS NULL OR owner = $2 OR source = $2 OR dest = $2)
       AND ($3::text IS NULL OR (created_at, id) <
         (SELECT created_at, id FROM transfers WHERE id = $3 AND partner_id = $1))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [partnerId, involving, after ?? null, limit],
  );
  return rows;
}
