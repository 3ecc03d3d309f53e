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
