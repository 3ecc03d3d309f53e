import type { Db, Queryable } from '../db/pool.ts';

/**
 * The SQL of the job queue's table (`jobs`); the queue's rules live in queue.ts, runner.ts and
 * housekeeping.ts. A domain that adds jobs in the statement writing its own rows gets the insert
 * from here (insertJobsFrom, insertJobsFromArrays): no other file writes `INSERT INTO jobs`.
 * The queue owns no database functions.
 */

export interface NewJob {
  kind: string;
  payload?: Record<string, unknown>;
  /** Epoch ms; defaults to now. */
  runAtMs?: number;
  maxAttempts?: number;
  /** At most one pending job per singleton key (periodic work scheduled by every node). */
  singletonKey?: string;
}

export interface ClaimedJob {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

/**
 * Adds a job with the caller's transaction handle, so the job exists exactly when the change
 * that caused it commits. Returns the job id, or undefined when a singleton is already queued.
 */
export async function enqueueJob(q: Queryable, job: NewJob): Promise<number | undefined> {
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO jobs (kind, payload, run_at, max_attempts, singleton_key)
     VALUES ($1, $2, COALESCE(to_timestamp($3 / 1000.0), now()), $4, $5)
     ON CONFLICT (singleton_key) WHERE singleton_key IS NOT NULL AND state = 'pending' DO NOTHING
     RETURNING id`,
    [
      job.kind,
      JSON.stringify(job.payload ?? {}),
      job.runAtMs ?? null,
      job.maxAttempts ?? 1,
      job.singletonKey ?? null,
    ],
  );
  return rows[0]?.id;
}

/**
 * Jobs as the last member of a caller's WITH statement (one round trip, same transaction as the
 * caller's own rows): `select` answers the columns kind, payload (jsonb), run_at (timestamptz)
 * and max_attempts, in that order. No singleton key (those go through enqueueJob).
 */
export function insertJobsFrom(select: string): string {
  return `INSERT INTO jobs (kind, payload, run_at, max_attempts)
    ${select}`;
}

/**
 * insertJobsFrom with the jobs given as four array parameters (`params`: the SQL names of the
 * kinds, payloads, run times in epoch ms or null for now, and attempts), whose values are
 * jobArrays' in that order.
 */
export function insertJobsFromArrays(params: readonly [string, string, string, string]): string {
  const [kinds, payloads, runAts, attempts] = params;
  return insertJobsFrom(`SELECT j.kind, j.payload, COALESCE(to_timestamp(j.run_at_ms / 1000.0), now()), j.max_attempts
    FROM unnest(${kinds}::text[], ${payloads}::jsonb[], ${runAts}::bigint[], ${attempts}::int[])
      AS j(kind, payload, run_at_ms, max_attempts)`);
}

/** The values of insertJobsFromArrays' four parameters, in their order. */
export function jobArrays(jobs: readonly Omit<NewJob, 'singletonKey'>[]): unknown[][] {
  return [
    jobs.map((job) => job.kind),
    jobs.map((job) => JSON.stringify(job.payload ?? {})),
    jobs.map((job) => job.runAtMs ?? null),
    jobs.map((job) => job.maxAttempts ?? 1),
  ];
}

/**
 * Up to `batch` due jobs of `kinds`, claimed for `leaseSeconds` with FOR UPDATE SKIP LOCKED, so
 * any number of processes claim from one table without taking the same job. A running job whose
 * lease ran out (its worker died) is due again.
 */
export async function claimJobs(
  db: Db,
  batch: number,
  leaseSeconds: number,
  kinds: readonly string[],
): Promise<ClaimedJob[]> {
  const { rows } = await db.query<ClaimedJob>(
    `UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_until = now() + make_interval(secs => $2)
     WHERE id IN (
       SELECT id FROM jobs
       WHERE kind = ANY($3) AND run_at <= now()
         AND (state = 'pending' OR (state = 'running' AND locked_until < now()))
       ORDER BY run_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING id, kind, payload, attempts, max_attempts`,
    [batch, leaseSeconds, kinds],
  );
  return rows;
}

/** Finished jobs, marked done in one statement. */
export async function markJobsDone(db: Db, ids: readonly number[]): Promise<void> {
  await db.query(
    `UPDATE jobs SET state = 'done', finished_at = now(), locked_until = NULL WHERE id = ANY($1::bigint[])`,
    [ids],
  );
}

/**
 * A fresh lease for the jobs still running under the claim that took them (same id and
 * attempts); a job claimed again since belongs to that claim and is left alone.
 */
export async function renewJobLeases(
  db: Db,
  jobs: readonly Pick<ClaimedJob, 'id' | 'attempts'>[],
  leaseSeconds: number,
): Promise<void> {
  await db.query(
    `UPDATE jobs SET locked_until = now() + make_interval(secs => $3)
     WHERE state = 'running'
       AND (id, attempts) IN (SELECT * FROM unnest($1::bigint[], $2::int[]))`,
    [jobs.map((job) => job.id), jobs.map((job) => job.attempts), leaseSeconds],
  );
}

/**
 * A failed attempt: `retry` puts the job back as pending after an exponential backoff (2^attempt
 * seconds, capped at one hour); otherwise it ends failed. `message` is kept as last_error.
 */
export async function recordJobFailure(db: Db, id: number, retry: boolean, message: string): Promise<void> {
  await db.query(
    `UPDATE jobs SET state = $2, last_error = $3, locked_until = NULL,
       run_at = CASE WHEN $2 = 'pending' THEN now() + make_interval(secs => LEAST(3600, power(2, attempts))) ELSE run_at END,
       finished_at = CASE WHEN $2 = 'failed' THEN now() ELSE NULL END
     WHERE id = $1`,
    [id, retry ? 'pending' : 'failed', message],
  );
}

/**
 * The purge of finished jobs as one statement and its parameters: finished more than `days` ago,
 * or the queue's own housekeeping runs (`platform.*`) done more than `hours` ago. One pass over the
 * table: no index leads to finished jobs (one would cost every job's completion an index entry).
 * Housekeeping runs it under its maintenance settings.
 */
export function finishedJobsPurge(days: number, hours: number): { statement: string; params: unknown[] } {
  return {
    statement: `DELETE FROM jobs WHERE state IN ('done', 'failed') AND (
           finished_at < now() - make_interval(days => $1)
           OR (kind LIKE 'platform.%' AND state = 'done' AND finished_at < now() - make_interval(hours => $2)))`,
    params: [days, hours],
  };
}
