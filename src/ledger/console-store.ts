import type { Queryable } from '../platform/db/pool.ts';

/**
 * The operator console's reads of the ledger (docs/contract.md, decision 145): the entries booked
 * for one order or transfer (by reference, ledger_entries_reference), each with its postings, and
 * the holds placed for it. Amounts stay decimal text.
 */

export interface ConsoleEntry {
  id: string;
  kind: string;
  reference: string | null;
  memo: string | null;
  created_at: Date;
  postings: { owner: string; currency: string; amount: string }[];
}

export async function entriesWithPostings(q: Queryable, reference: string, limit: number) {
  const { rows } = await q.query<ConsoleEntry>(
    `SELECT e.id::text, e.kind, e.reference, e.memo, e.created_at,
       coalesce((SELECT json_agg(json_build_object('owner', p.owner, 'currency', p.currency, 'amount', p.amount::text)
                 ORDER BY p.id) FROM ledger_postings p WHERE p.entry_id = e.id), '[]') AS postings
     FROM ledger_entries e WHERE e.reference = $1 ORDER BY e.id LIMIT $2`,
    [reference, limit],
  );
  return rows;
}

export interface ConsoleHold {
  id: string;
  owner: string;
  currency: string;
  amount: string;
  state: string;
  created_at: Date;
  resolved_at: Date | null;
}

/** A hold by its id (an order's or transfer's `hold_id`). */
export async function consoleHold(q: Queryable, holdId: number | string) {
  const { rows } = await q.query<ConsoleHold>(
    `SELECT id::text, owner, currency, amount::text, state, created_at, resolved_at FROM ledger_holds WHERE id = $1`,
    [holdId],
  );
  return rows[0];
}
