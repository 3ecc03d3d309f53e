import type { Db, Tx } from '../db/pool.ts';
import { enqueueJob } from './queue.ts';
import type { JobRunner } from './runner.ts';

const PURGE_EVERY_MS = 60 * 60 * 1000;
const FINISHED_JOB_RETENTION_DAYS = 7;
/**
 * Housekeeping's own runs that succeeded (`platform.*`: the analyze check alone finishes 43,200 a
 * day) are kept an hour, not a week: they record nothing anyone looks for, and a week of them
 * would be most of the queue's table. Failed ones keep the week, for their last_error.
 */
const FINISHED_HOUSEKEEPING_RETENTION_HOURS = 1;

/**
 * Hourly clean-up: expired Idempotency-Keys (they live 24 h), long-finished jobs (housekeeping's
 * own successful runs after an hour), and whatever the domain modules hand in. Scheduled
 * as a singleton (registerPeriodic), so however many processes run workers, one purge is queued
 * at a time, and a purge that fails does not end the hourly purges.
 */
export type Purge = (db: Db) => Promise<void>;

export function registerHousekeeping(
  runner: JobRunner,
  db: Db,
  modulePurges: Purge[] = [],
): Promise<unknown> {
  return registerPeriodic(runner, db, 'platform.purge', PURGE_EVERY_MS, async () => {
    for (const purge of modulePurges) await purge(db);
    await db.query('DELETE FROM idempotency_keys WHERE expires_at <= now()');
    // One statement, one pass over the table: no index leads to finished jobs (one would cost
    // every job's completion an index entry). A week of jobs at a busy service's rate takes
    // longer to scan than the pool's request-sized timeout allows: cancelled there every hour, the
    // table would only grow. Under the maintenance timeout instead.
    await onOwnConnection(db, (client) =>
      underMaintenanceSettings(
        client,
        `DELETE FROM jobs WHERE state IN ('done', 'failed') AND (
           finished_at < now() - make_interval(days => $1)
           OR (kind LIKE 'platform.%' AND state = 'done' AND finished_at < now() - make_interval(hours => $2)))`,
        [FINISHED_JOB_RETENTION_DAYS, FINISHED_HOUSEKEEPING_RETENTION_HOURS],
      ),
    );
  });
}

/** Queues a periodic job once, whatever the number of processes (its kind is its singleton key). */
function scheduleSingleton(db: Db, kind: string, runAtMs?: number) {
  return enqueueJob(db, { kind, singletonKey: kind, ...(runAtMs ? { runAtMs } : {}) });
}

/**
 * A singleton job that runs `work` every `everyMs`. Each run queues the next one first: a run
 * that fails (a statement timeout, say) fails that attempt only, and the next one tries again.
 * Answers the first run's job id, or undefined when another process had queued it already.
 * Domain modules schedule their own periodic sweeps with it too.
 */
export function registerPeriodic(
  runner: JobRunner,
  db: Db,
  kind: string,
  everyMs: number,
  work: () => Promise<void>,
): Promise<unknown> {
  runner.register(kind, async () => {
    await scheduleSingleton(db, kind, Date.now() + everyMs);
    await work();
  });
  return scheduleSingleton(db, kind);
}

const FREQUENT_PURGE_EVERY_MS = 5000;

/**
 * Every five seconds: the purges of records written at the rate of requests (expired
 * signature-replay records), handed in by the modules that own them. Once a minute, a minute of
 * signed traffic at 6,000 requests a second is 360,000 rows: a quarter of a second of one core
 * in a quiet database (bench/FINDINGS.md, session 10), a stall for whatever runs beside it.
 * Twelve times a minute, each run is a twelfth of that. The minute's VACUUM reclaims the rows
 * when the table is among its hot tables. A singleton, like the others.
 */
export function registerFrequentPurges(runner: JobRunner, db: Db, purges: Purge[]): Promise<unknown> {
  return registerPeriodic(runner, db, 'platform.purgeFrequent', FREQUENT_PURGE_EVERY_MS, async () => {
    for (const purge of purges) await purge(db);
  });
}

const VACUUM_EVERY_MS = 60 * 1000;

/**
 * Every minute: VACUUM of the tables whose rows are updated or deleted all the time (job and
 * delivery queues, balance rows, holds, order states), named by the modules that own them, once
 * they hold dead row versions (vacuumDeadTables). A queue's claim walks its index past every dead
 * row version left by finished work, and a hot balance row drags a chain of dead versions, until
 * a vacuum removes them: left to the server's autovacuum (off on the CI server, behind under load
 * anywhere), card orders slowed round after round as the job index filled with dead entries
 * (bench/FINDINGS.md). A singleton, like the purge; VACUUM takes no lock that blocks reads or
 * writes. Then analyzeChangedTables.
 */
export function registerVacuum(
  runner: JobRunner,
  db: Db,
  hotTables: readonly string[],
  ownTables: readonly string[],
): Promise<unknown> {
  checkTableNames([...hotTables, ...ownTables]);
  return registerPeriodic(runner, db, 'platform.vacuum', VACUUM_EVERY_MS, async () => {
    await vacuumDeadTables(db, hotTables);
    await analyzeChangedTables(db, ownTables);
  });
}

function checkTableNames(tables: readonly string[]): void {
  for (const table of tables) {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
  }
}

/**
 * Maintenance runs at the pace of PostgreSQL's own autovacuum: a sleep of
 * autovacuum_vacuum_cost_delay's 2 ms each time the pages it touched cost vacuum_cost_limit
 * (200). A VACUUM or ANALYZE someone types runs unthrottled, and so did ours: the minute's
 * ANALYZE took a whole core for 2 s after a bench's heavy rounds, and on two cores every request
 * in flight waited behind it (bench/FINDINGS.md, session 8).
 */
const MAINTENANCE_COST_DELAY_MS = 2;

/**
 * Throttled, a VACUUM or ANALYZE of a large table takes longer than the pool's statement timeout
 * (5 s by default, sized for requests) would allow; cancelled there, it would start over every
 * minute and never finish. Its own bound instead (also the hourly purge's, a pass over the jobs).
 */
const MAINTENANCE_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Runs `command` (VACUUM or ANALYZE) on the public tables whose pg_stat_user_tables row meets
 * `condition`, in one statement, under the maintenance settings; nothing when none does. A table
 * another maintenance statement has in hand is skipped, not waited for (SKIP_LOCKED; the next run
 * takes it): the job runner goes on while a long VACUUM runs, and a growth ANALYZE every two
 * seconds waiting behind it would take one more of its lanes each time.
 */
async function maintainTables(
  db: Db,
  command: 'VACUUM' | 'ANALYZE',
  condition: string,
  params: unknown[] = [],
): Promise<void> {
  await onOwnConnection(db, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT quote_ident(relname) AS name FROM pg_stat_user_tables WHERE schemaname = 'public' AND ${condition}`,
      params,
    );
    if (rows.length === 0) return;
    await underMaintenanceSettings(
      client,
      `${command} (SKIP_LOCKED) ${rows.map((row) => row.name).join(', ')}`,
    );
  });
}

/**
 * `statement` under the maintenance settings above. VACUUM cannot run in a transaction, so they
 * are SET on the connection around it and RESET after (onOwnConnection closes a connection
 * whose RESET may not have run).
 */
async function underMaintenanceSettings(
  client: Tx,
  statement: string,
  params: unknown[] = [],
): Promise<void> {
  await client.query(
    `SET vacuum_cost_delay = ${MAINTENANCE_COST_DELAY_MS}; SET statement_timeout = ${MAINTENANCE_TIMEOUT_MS}`,
  );
  await client.query(statement, params);
  await client.query('RESET vacuum_cost_delay; RESET statement_timeout');
}

/** `work` on a connection of its own, closed rather than returned to the pool if it threw. */
async function onOwnConnection<T>(db: Db, work: (client: Tx) => Promise<T>): Promise<T> {
  const client = await db.connect();
  let failure: Error | undefined;
  try {
    return await work(client);
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(failure);
  }
}

/**
 * VACUUM of the hot tables holding more dead row versions than 50 plus a twentieth of their live
 * rows (autovacuum's rule, twice as eager). A table that is only read, like a large transfer
 * history, is left alone: vacuuming and analyzing it every minute regardless cost a burst of CPU
 * each minute in every server process for nothing.
 */
async function vacuumDeadTables(db: Db, hotTables: readonly string[]): Promise<void> {
  if (hotTables.length === 0) return;
  await maintainTables(
    db,
    'VACUUM',
    'relname = ANY($1::text[]) AND n_dead_tup > 50 + 0.05 * GREATEST(n_live_tup, 0)',
    [hotTables],
  );
}

/**
 * ANALYZE of every table of ours (`ownTables`: a database may hold another application's too,
 * which is not ours to maintain) that changed by a tenth since its statistics were taken (the
 * autovacuum daemon's own rule), hot tables included: the planner's picture of what the rows
 * hold (distinct keys, ranges) stays current. Tables that grew fast are analyzed sooner
 * (registerGrowthAnalyze).
 */
async function analyzeChangedTables(db: Db, ownTables: readonly string[]): Promise<void> {
  await maintainTables(
    db,
    'ANALYZE',
    'relname = ANY($1::text[]) AND n_mod_since_analyze > 50 + 0.1 * GREATEST(n_live_tup, 0)',
    [ownTables],
  );
}

const GROWTH_ANALYZE_EVERY_MS = 2000;

/**
 * Growth analyses stop once a table's statistics cover this many rows: plans made from them are
 * the plans of a large table (index probes, nested loops over the parameter arrays), and they
 * stay right as it grows. Each analysis samples up to 30,000 rows, so the doublings past this
 * size were most of what growth analyses cost: ~5% of the CPU of a card order on a fresh
 * database (bench/FINDINGS.md, sessions 16 and 17). Past it, the minute's analyzeChangedTables
 * keeps the statistics current.
 */
const GROWTH_ANALYZE_BELOW_ROWS = 5000;

/**
 * Every two seconds: ANALYZE of the tables of ours whose live rows more than doubled (plus 50) since
 * their statistics, while those statistics cover fewer than GROWTH_ANALYZE_BELOW_ROWS rows
 * (`uncapped` tables at any size). Statements are prepared once per connection with a generic plan (pool.ts),
 * planned from the statistics of that moment, and kept until the table's statistics change: a
 * plan made while a table held a handful of rows (a sequential scan and a sort where an index
 * probe belongs) scans the whole table on every call as it grows to thousands. On a fresh
 * database the limits' window reads ran at 40–170 ms a statement in the first seconds of card
 * orders, until the minute's ANALYZE (bench/FINDINGS.md, session 7). ANALYZE makes every
 * connection plan those statements again; doubling as the rule keeps that to a few times per
 * table while it grows, and never for a large table that only churns (the job queue).
 *
 * `uncapped`: tables of `ownTables` kept on growth analyses at every size (the caller says which
 * and why).
 */
export function registerGrowthAnalyze(
  runner: JobRunner,
  db: Db,
  ownTables: readonly string[],
  uncapped: readonly string[] = [],
): Promise<unknown> {
  checkTableNames([...ownTables, ...uncapped]);
  return registerPeriodic(runner, db, 'platform.analyzeGrown', GROWTH_ANALYZE_EVERY_MS, () =>
    maintainTables(
      db,
      'ANALYZE',
      `relname = ANY($1::text[]) AND EXISTS (
         SELECT 1 FROM pg_class AS c WHERE c.oid = relid
           AND n_live_tup > 50 + 2 * GREATEST(c.reltuples, 0)
           AND (c.reltuples < $2 OR relname = ANY($3::text[])))`,
      [ownTables, GROWTH_ANALYZE_BELOW_ROWS, uncapped],
    ),
  );
}
