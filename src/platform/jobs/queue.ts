import type { Queryable } from '../db/pool.ts';

export interface NewJob {
  kind: string;
  payload?: Record<string, unknown>;
  /** Epoch ms; defaults to now. */
  runAtMs?: number;
  maxAttempts?: number;
  /** At most one pending job per singleton key (periodic work scheduled by every node). */
  singletonKey?: string;
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
 * enqueueJob's row as one member of a caller's WITH statement, for a module that adds its job in
 * the statement writing its own rows (one round trip instead of two, same transaction). Reads four
 * parameters from `$first` on, in jobParams' order; no singleton key (those go through enqueueJob).
 */
export function jobInsertCte(name: string, first: number): string {
  return `${name} AS (INSERT INTO jobs (kind, payload, run_at, max_attempts)
    VALUES ($${first}::text, $${first + 1}::jsonb, COALESCE(to_timestamp($${first + 2}::bigint / 1000.0), now()), $${first + 3}::int)
    RETURNING id)`;
}

export function jobParams(job: Omit<NewJob, 'singletonKey'>): unknown[] {
  return [job.kind, JSON.stringify(job.payload ?? {}), job.runAtMs ?? null, job.maxAttempts ?? 1];
}
