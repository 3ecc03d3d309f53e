import pg from 'pg';
import { PreparingClient } from './prepared-client.ts';

export type Db = pg.Pool;
/** Anything that runs a query: the pool itself or a client inside a transaction. */
export type Queryable = Pick<pg.PoolClient, 'query'>;
export type Tx = pg.PoolClient;

// NUMERIC comes back as text and is turned into Decimal by the stores, never into a float.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (text) => text);
// Array types' OIDs; pg-types' own list names base types only.
type TypeOid = Parameters<typeof pg.types.setTypeParser>[0];
const NUMERIC_ARRAY_OID = 1231 as TypeOid;
const TEXT_ARRAY_OID = 1009 as TypeOid;
// NUMERIC[] likewise: pg-types reads its elements as floats; read them as text[]'s are, as text.
pg.types.setTypeParser(NUMERIC_ARRAY_OID, pg.types.getTypeParser(TEXT_ARRAY_OID, 'text'));
// BIGINT columns (epoch-ms counters) fit a JS number; keep them numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));

export interface PoolSettings {
  connectionString: string;
  max: number;
  statementTimeoutMs: number;
  applicationName?: string;
  /**
   * false: commits return before the WAL reaches disk. Only for records whose loss in a
   * database crash is covered otherwise (see AppContext.asyncCommitDb).
   */
  synchronousCommit?: boolean;
}

/**
 * What the planner charges for reading a page out of order, against 1 for the next page of a
 * sequential scan (PostgreSQL's default is 4, for spinning disks). Our statements look rows up by
 * key, on a working set that lives in memory or on SSD, where an index probe costs little more
 * than the page a scan reads next. At 4, a generic plan joining a parameter array to a table of a
 * few thousand rows hashes a sequential scan of the whole table instead of probing its primary
 * key (the card holds a worker batch settles, the job claim): every call reads the table, growing
 * with it, until its statistics change. 1.1 is the usual value for SSD storage.
 */
const RANDOM_PAGE_COST = 1.1;

/**
 * Every statement is prepared (PreparingClient); a generic plan is made once per connection and
 * reused. Left to choose (plan_cache_mode auto), PostgreSQL re-plans statements whose generic
 * plan it costs higher, like the card-limit sums over date ranges, spending far more on planning
 * than on execution on every call. Our statements look rows up by key or walk an index in order,
 * where the generic plan is the one a custom plan would pick. The optional filters of transfer
 * and subscription reads (`$n IS NULL OR owner = $n`) get a plan that filters instead of choosing
 * an index per value; those reads start from the id or the partner's index, which bounds that.
 */
function sessionOptions(settings: PoolSettings): string {
  const options = ['-c plan_cache_mode=force_generic_plan', `-c random_page_cost=${RANDOM_PAGE_COST}`];
  if (settings.synchronousCommit === false) options.push('-c synchronous_commit=off');
  return options.join(' ');
}

export function createPool(settings: PoolSettings): Db {
  const pool = new pg.Pool({
    Client: PreparingClient,
    connectionString: settings.connectionString,
    max: settings.max,
    statement_timeout: settings.statementTimeoutMs,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    application_name: settings.applicationName ?? 'rampart',
    options: sessionOptions(settings),
  });
  // An idle client losing its server (restart, failover) must not crash the process;
  // the pool drops it and the next checkout reconnects.
  pool.on('error', () => undefined);
  // A checked-out client whose server goes away between two queries (inside a transaction,
  // while awaiting something else) emits 'error' with no listener of the pool's attached, which
  // would crash the process. Swallowing it is safe: the client's next query fails ("not
  // queryable", answered as 503 database unavailable) and release() discards it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Runs fn in one transaction: commit on success, rollback on any throw. */
export async function withTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
  } catch (error) {
    client.release();
    throw error;
  }
  return finishTransaction(client, fn);
}

/**
 * Runs fn in the transaction `client` has begun: commit on success, rollback on any throw; the
 * client goes back to its pool either way.
 */
export async function finishTransaction<T>(client: Tx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Runs fn in one transaction on a client the caller keeps checked out (one that holds a session
 * lock across several transactions): commit on success, rollback on any throw, no release.
 */
export async function inTransaction<T>(client: Tx, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
