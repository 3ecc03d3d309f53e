import type { Db } from '../db/pool.ts';
import { enqueueJob } from './queue.ts';
import type { JobRunner } from './runner.ts';

const PURGE_EVERY_MS = 60 * 60 * 1000;
const FINISHED_JOB_RETENTION_DAYS = 7;

/**
 * Hourly clean-up: expired Idempotency-Keys (they live 24 h), long-finished jobs, and whatever
 * the domain modules hand in (e.g. expired signature-replay records). Scheduled
 * as a singleton, so however many processes run workers, one purge is queued at a time.
 */
export type Purge = (db: Db) => Promise<void>;

export function registerHousekeeping(
  runner: JobRunner,
  db: Db,
  modulePurges: Purge[] = [],
): Promise<unknown> {
  runner.register('platform.purge', async () => {
    for (const purge of modulePurges) await purge(db);
    await db.query('DELETE FROM idempotency_keys WHERE expires_at <= now()');
    await db.query(
      `DELETE FROM jobs WHERE state IN ('done', 'failed') AND finished_at < now() - make_interval(days => $1)`,
      [FINISHED_JOB_RETENTION_DAYS],
    );
    await schedulePurge(db, Date.now() + PURGE_EVERY_MS);
  });
  return schedulePurge(db);
}

function schedulePurge(db: Db, runAtMs?: number) {
  return enqueueJob(db, {
    kind: 'platform.purge',
    singletonKey: 'platform.purge',
    ...(runAtMs ? { runAtMs } : {}),
  });
}
