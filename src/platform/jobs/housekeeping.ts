import {
  analyzeChangedTables,
  analyzeGrownTables,
  underMaintenanceSettings,
  vacuumDeadTables,
} from '../db/maintenance-store.ts';
import type { Db, Tx } from '../db/pool.ts';
import { purgeExpiredIdempotencyKeys } from '../http/idempotency-store.ts';
import type { JobRunner } from './runner.ts';
import { enqueueJob, finishedJobsPurge } from './store.ts';

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
    await purgeExpiredIdempotencyKeys(db);
    // A week of jobs at a busy service's rate takes longer to scan than the pool's request-sized
    // timeout allows: cancelled there every hour, the table would only grow. Under the
    // maintenance timeout instead.
    const purge = finishedJobsPurge(FINISHED_JOB_RETENTION_DAYS, FINISHED_HOUSEKEEPING_RETENTION_HOURS);
    await onOwnConnection(db, (client) => underMaintenanceSettings(client, purge.statement, purge.params));
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
 * signature-replay records), handed in by the modules that own them. Once a minute, a busy
 * minute of signed traffic is hundreds of thousands of rows deleted in one statement, a stall for
 * whatever runs beside it; twelve times a minute, each run is a twelfth of that. The minute's VACUUM reclaims the rows
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
 * anywhere), every claim slows as the job index fills with dead entries. A singleton, like the purge; VACUUM takes no lock that blocks reads or
 * writes. A table that is only read, like a large transfer history, is left alone: vacuuming and
 * analyzing it every minute regardless cost a burst of CPU each minute in every server process
 * for nothing. Then ANALYZE of every table of ours (`ownTables`: a database may hold another
 * application's too, which is not ours to maintain) that changed by a tenth since its statistics
 * were taken, hot tables included: the planner's picture of what the rows hold (distinct keys,
 * ranges) stays current. Tables that grew fast are analyzed sooner (registerGrowthAnalyze).
 */
export function registerVacuum(
  runner: JobRunner,
  db: Db,
  hotTables: readonly string[],
  ownTables: readonly string[],
): Promise<unknown> {
  checkTableNames([...hotTables, ...ownTables]);
  return registerPeriodic(runner, db, 'platform.vacuum', VACUUM_EVERY_MS, async () => {
    if (hotTables.length > 0) await onOwnConnection(db, (client) => vacuumDeadTables(client, hotTables));
    await onOwnConnection(db, (client) => analyzeChangedTables(client, ownTables));
  });
}

function checkTableNames(tables: readonly string[]): void {
  for (const table of tables) {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
  }
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

const GROWTH_ANALYZE_EVERY_MS = 2000;

/**
 * Growth analyses stop once a table's statistics cover this many rows: plans made from them are
 * the plans of a large table (index probes, nested loops over the parameter arrays), and they
 * stay right as it grows. Each analysis samples up to 30,000 rows, so the doublings past this
 * size would be most of what growth analyses cost. Past it, the minute's ANALYZE of changed
 * tables keeps the statistics current.
 */
const GROWTH_ANALYZE_BELOW_ROWS = 5000;

/**
 * Every two seconds: ANALYZE of the tables of ours whose live rows more than doubled (plus 50) since
 * their statistics, while those statistics cover fewer than GROWTH_ANALYZE_BELOW_ROWS rows
 * (`uncapped` tables at any size). Statements are prepared once per connection with a generic plan (pool.ts),
 * planned from the statistics of that moment, and kept until the table's statistics change: a
 * plan made while a table held a handful of rows (a sequential scan and a sort where an index
 * probe belongs) scans the whole table on every call as it grows to thousands: on a fresh
 * database the limits' window reads would crawl until the minute's ANALYZE. ANALYZE makes every
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
    onOwnConnection(db, (client) =>
      analyzeGrownTables(client, ownTables, GROWTH_ANALYZE_BELOW_ROWS, uncapped),
    ),
  );
}
