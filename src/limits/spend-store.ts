import { rowsInInputOrder } from '../platform/db/grouped-writer.ts';
import type { Queryable } from '../platform/db/pool.ts';
import type { StoredLimits } from './overrides-store.ts';

/**
 * SQL for card spend (migrations/008_cards.sql, 009_card_spend_running_totals.sql): one row per
 * (order, key), each carrying its key's running total in (at, order_id) order. What a key spent
 * since an instant S is its last running total minus the last one before S: a window costs two
 * probes of the (spend_key, at, order_id) index however many orders the key has, and is exact to
 * the instant (a row at S counts, as the windows have always been `at >= now - window`).
 * Writers keep the totals right under the per-key advisory locks taken below.
 */

const AT = (n: number) => `to_timestamp($${n}::bigint / 1000.0)`;

/** The key's running total now: its last row's. */
const LATEST = `JOIN LATERAL (
    SELECT running_usd FROM card_spend WHERE spend_key = k.key ORDER BY at DESC, order_id DESC LIMIT 1
  ) AS latest ON true`;

/** The key's running total just before `instant` (an SQL timestamptz); 0 when nothing is older. */
const BEFORE = (instant: string) => `COALESCE((
    SELECT running_usd FROM card_spend WHERE spend_key = k.key AND at < ${instant}
    ORDER BY at DESC, order_id DESC LIMIT 1), 0)`;

/** Column w<index>: the most any key spent since `start` (an SQL timestamptz), 0 without spend. */
const spentSince = (index: number, start: string) =>
  `COALESCE(max(latest.running_usd - ${BEFORE(start)}), 0) AS w${index}`;

/**
 * Whether any key (rows of `keys`, a FROM item with columns `key` and `order_id`) has a row after
 * (`atSql`, the order id): only when another process's clock ran ahead. Each probe is one index
 * descent (LIMIT 1), and a false answer gates the UPDATE that corrects those rows: as a one-time
 * filter it then never scans. Without it, a generic plan costs `spend_key = ANY($n)` by the
 * table's distinct keys, and once one key holds most of the rows that plan is a sequential scan
 * of the table for every order.
 */
const anyLater = (keys: string, atSql: string) => `(SELECT EXISTS (
    SELECT 1 FROM ${keys} CROSS JOIN LATERAL (
      SELECT 1 FROM card_spend WHERE spend_key = k.key AND (at, order_id) > (${atSql}, k.order_id) LIMIT 1) AS after))`;

/** Cached per window count: the same text on every call, so the prepared statement is reused. */
const spentTexts = new Map<number, string>();

/**
 * Parameters: 1 every read's keys, 2 the read (1-based) each key belongs to, then per window the
 * reads' window starts. Per read and window, the most any of its keys spent since the start.
 */
function largestSpentOfText(windows: number): string {
  const names = Array.from({ length: windows }, (_, index) => `s${index}`);
  const columns = names.map((name, index) => spentSince(index, `to_timestamp(s.${name} / 1000.0)`));
  const starts = names.map((_, index) => `$${3 + index}::bigint[]`);
  return `SELECT k.ord, ${columns.join(', ')}
  FROM unnest($1::text[], $2::int[]) AS k(key, ord)
  JOIN unnest(${starts.join(', ')}) WITH ORDINALITY AS s(${names.join(', ')}, ord) ON s.ord = k.ord
  ${LATEST}
  GROUP BY k.ord`;
}

export interface SpentRead {
  keys: readonly string[];
  /** Per window, the instant it starts at. */
  startsMs: readonly number[];
}

/**
 * For many reads in one round trip (concurrent limits requests, grouped in service.ts): per read
 * and window, the most any one of its keys spent since the window's start (a limit holds per
 * key), as decimal text; keys with no spend count 0. Spend is never recorded after "now" (the
 * service clock only moves forward), so a key's last row closes every window.
 */
export async function largestSpentOf(q: Queryable, reads: readonly SpentRead[]): Promise<string[][]> {
  const windows = reads[0]?.startsMs.length ?? 0;
  let text = spentTexts.get(windows);
  if (text === undefined) {
    text = largestSpentOfText(windows);
    spentTexts.set(windows, text);
  }
  const keys: string[] = [];
  const owners: number[] = [];
  reads.forEach((read, index) => {
    for (const key of read.keys) {
      keys.push(key);
      owners.push(index + 1);
    }
  });
  const starts = Array.from({ length: windows }, (_, window) => reads.map((read) => read.startsMs[window]!));
  const { rows } = await q.query<Record<string, string> & { ord: number }>(text, [keys, owners, ...starts]);
  // A read none of whose keys has spent anything gets no row: it spent 0 in every window.
  return rowsInInputOrder(rows, reads.length).map((row) =>
    Array.from({ length: windows }, (_, window) => (row ? row[`w${window}`]! : '0')),
  );
}

/** The advisory lock of one spend key (column `key`): written once, so every taker locks alike. */
const LOCK_KEY = `pg_advisory_xact_lock(hashtextextended('card-spend:' || key, 8008))`;

/** The keys of `$n`, distinct, in byte order (as deleteSpends takes them), so lockers cannot deadlock. */
const orderedKeys = (n: number) =>
  `(SELECT DISTINCT key COLLATE "C" AS key FROM unnest($${n}::text[]) AS k(key) ORDER BY 1) AS ordered`;

/**
 * Serialises every order touching these keys until the caller's transaction ends: one
 * statement, keys taken in byte order (as deleteSpends does) so two orders sharing keys cannot
 * deadlock. Must run as its own statement, before the reads it protects: a statement's snapshot
 * is taken when it starts, so a read in the same statement could miss what the lock waited for.
 * The same statement (one round trip for orders placed together) reads the limit overrides of
 * these partners (card_limit_overrides; partners without one are absent). The overrides are
 * operator settings the locks do not guard, so reading them from the statement's snapshot,
 * taken before the locks were waited for, is as good as reading them after.
 */
export async function lockSpendKeysReadingOverrides(
  q: Queryable,
  keys: readonly string[],
  partnerIds: readonly string[],
): Promise<Map<string, StoredLimits>> {
  const { rows } = await q.query<{ partner_id: string | null; limits: StoredLimits | null }>(
    `SELECT o.partner_id, o.limits
     FROM (SELECT count(${LOCK_KEY}) FROM ${orderedKeys(1)}) AS locked
     LEFT JOIN card_limit_overrides AS o ON o.partner_id = ANY($2::text[])`,
    [keys, partnerIds],
  );
  return new Map(rows.flatMap((row) => (row.partner_id && row.limits ? [[row.partner_id, row.limits]] : [])));
}

export interface GroupSpend {
  orderId: string;
  keys: readonly string[];
  amountUsd: string;
  /** Per window (the order of the windows passed with it), the order's limit. */
  limitsUsd: readonly string[];
}

const recordGroupTexts = new Map<number, string>();

/**
 * Parameters: 1 order ids, 2 their amounts, 3 every order's keys, 4 the order (1-based) each key
 * belongs to, 5 the time, then per window its start and the orders' limits in it. An order fits
 * when, for every window, its amount is at most its limit less the most one of its keys spent
 * (never below 0); only a fitting order's rows are written.
 */
function recordGroupText(windows: number): string {
  const startParam = (index: number) => 6 + index * 2;
  const names = Array.from({ length: windows }, (_, index) => `l${index}`);
  const limits = names.map((_, index) => `$${startParam(index) + 1}::numeric[]`);
  const columns = names.map((_, index) => spentSince(index, AT(startParam(index))));
  const fits = names.map(
    (name, index) => `o.amount <= GREATEST(0, o.${name} - COALESCE(spent.w${index}, 0))`,
  );
  const answered = names.map((_, index) => `COALESCE(spent.w${index}, 0) AS w${index}`);
  return `WITH o AS MATERIALIZED (
    SELECT * FROM unnest($1::text[], $2::numeric[], ${limits.join(', ')})
      WITH ORDINALITY AS o(order_id, amount, ${names.join(', ')}, ord)
  ),
  s AS MATERIALIZED (
    SELECT k.key, o.order_id, o.amount, o.ord FROM unnest($3::text[], $4::int[]) AS k(key, ord) JOIN o ON o.ord = k.ord
  ),
  spent AS MATERIALIZED (SELECT k.ord, ${columns.join(', ')} FROM s AS k ${LATEST} GROUP BY k.ord),
  fit AS MATERIALIZED (
    SELECT o.ord FROM o LEFT JOIN spent ON spent.ord = o.ord WHERE ${fits.join(' AND ')}
  ),
  go AS MATERIALIZED (SELECT * FROM s WHERE s.ord IN (SELECT ord FROM fit)),
  later AS (
    UPDATE card_spend AS c SET running_usd = c.running_usd + go.amount FROM go
    -- spend_key = ANY: the keys' index ranges, not a join against the whole table.
    WHERE ${anyLater('go AS k', AT(5))}
      AND c.spend_key = ANY($3::text[]) AND c.spend_key = go.key AND (c.at, c.order_id) > (${AT(5)}, go.order_id)
  ),
  recorded AS (
    INSERT INTO card_spend (order_id, spend_key, amount_usd, at, running_usd)
    SELECT go.order_id, go.key, go.amount, ${AT(5)}, go.amount + COALESCE((
        SELECT running_usd FROM card_spend WHERE spend_key = go.key AND (at, order_id) < (${AT(5)}, go.order_id)
        ORDER BY at DESC, order_id DESC LIMIT 1), 0)
    FROM go
  )
  SELECT ${answered.join(', ')}, o.ord IN (SELECT ord FROM fit) AS recorded
  FROM o LEFT JOIN spent ON spent.ord = o.ord ORDER BY o.ord`;
}

/**
 * Checks and records the spend of orders, no two of which share a key, in one statement under
 * their keys' locks (lockSpendKeysReadingOverrides, same transaction): each order's spend is
 * recorded when it fits every window, the windows starting at the same instants for all. Each (order, key) row
 * gets the running total of the key's row before it plus the amount, and rows after it (only
 * when another process's clock ran ahead) gain the amount. Answers, per order, whether it was
 * recorded and the most one of its keys had spent in each window before it.
 */
export async function recordSpendsWithin(
  q: Queryable,
  orders: readonly GroupSpend[],
  startsMs: readonly number[],
  atMs: number,
): Promise<{ recorded: boolean; spent: string[] }[]> {
  const windows = startsMs.length;
  let text = recordGroupTexts.get(windows);
  if (text === undefined) {
    text = recordGroupText(windows);
    recordGroupTexts.set(windows, text);
  }
  const keys: string[] = [];
  const owners: number[] = [];
  orders.forEach((order, index) => {
    for (const key of order.keys) {
      keys.push(key);
      owners.push(index + 1);
    }
  });
  const params: unknown[] = [
    orders.map((order) => order.orderId),
    orders.map((order) => order.amountUsd),
    keys,
    owners,
    atMs,
  ];
  startsMs.forEach((startMs, window) => {
    params.push(
      startMs,
      orders.map((order) => order.limitsUsd[window]!),
    );
  });
  const { rows } = await q.query<Record<string, string> & { recorded: boolean }>(text, params);
  return rows.map((row) => ({
    recorded: row.recorded,
    spent: Array.from({ length: windows }, (_, window) => row[`w${window}`]!),
  }));
}

/**
 * Removes the spend of orders (one, or the ones a group placed that did not go ahead); a repeat
 * finds nothing. Their keys are locked first (byte order, as lockSpendKeysReadingOverrides), since
 * the rows recorded after theirs under each key lose their amounts from their running totals:
 * usually none or a few, the orders having failed soon after they were placed. A later row loses
 * the amount of every removed row before it under its key, in one statement for all the orders.
 */
export async function deleteSpends(q: Queryable, orderIds: readonly string[]): Promise<void> {
  const locked = await q.query(
    `SELECT ${LOCK_KEY}
     FROM (SELECT DISTINCT spend_key COLLATE "C" AS key FROM card_spend WHERE order_id = ANY($1::text[]) ORDER BY 1) AS ordered`,
    [orderIds],
  );
  if (locked.rowCount === 0) return;
  // The statement's snapshot still shows the deleted rows: `c` leaves out those of these orders.
  await q.query(
    `WITH released AS (
       DELETE FROM card_spend WHERE order_id = ANY($1::text[]) RETURNING spend_key, amount_usd, at, order_id
     ),
     lost AS (
       SELECT c.spend_key, c.at, c.order_id, sum(r.amount_usd) AS amount
       FROM released AS r
       JOIN card_spend AS c ON c.spend_key = r.spend_key AND (c.at, c.order_id) > (r.at, r.order_id)
       WHERE c.order_id <> ALL($1::text[])
       GROUP BY c.spend_key, c.at, c.order_id
     )
     UPDATE card_spend AS c SET running_usd = c.running_usd - lost.amount
     FROM lost WHERE c.spend_key = lost.spend_key AND c.at = lost.at AND c.order_id = lost.order_id`,
    [orderIds],
  );
}
