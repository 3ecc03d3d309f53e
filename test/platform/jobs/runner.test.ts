import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPool, type Db } from '../../../src/platform/db/pool.ts';
import { enqueueJob } from '../../../src/platform/jobs/queue.ts';
import { type ClaimedJob, JobRunner } from '../../../src/platform/jobs/runner.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

const log = pino({ level: 'silent' });
let database: TestDatabase;
let otherPool: Db;

beforeAll(async () => {
  database = await freshDatabase();
  otherPool = createPool({ connectionString: database.url, max: 4, statementTimeoutMs: 10_000 });
  await database.db.query('CREATE TABLE job_runs (job_id bigint NOT NULL, runner text NOT NULL)');
});
afterAll(async () => {
  await otherPool.end();
  await database.drop();
});
beforeEach(async () => {
  await database.db.query('TRUNCATE jobs, job_runs');
});

interface JobRow {
  state: string;
  attempts: number;
  last_error: string | null;
  finished: boolean;
}

async function job(id: number | undefined): Promise<JobRow> {
  const { rows } = await database.db.query<JobRow>(
    `SELECT state, attempts, last_error, finished_at IS NOT NULL AS finished
     FROM jobs WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

describe('JobRunner', () => {
  it('runs a registered handler once with its payload and marks the job done', async () => {
    const runner = new JobRunner(database.db, log, 1000);
    const seen: ClaimedJob[] = [];
    runner.register('test.hello', async (claimed) => {
      seen.push(claimed);
    });
    const id = await enqueueJob(database.db, { kind: 'test.hello', payload: { greeting: 'hi' } });
    const other = await enqueueJob(database.db, { kind: 'test.unhandled' });

    expect(await runner.drain()).toBe(1);
    expect(seen).toEqual([
      { id, kind: 'test.hello', payload: { greeting: 'hi' }, attempts: 1, max_attempts: 1 },
    ]);
    expect(await job(id)).toMatchObject({ state: 'done', attempts: 1, finished: true, last_error: null });
    // A kind this runner has no handler for is left for a runner that has one.
    expect(await job(other)).toMatchObject({ state: 'pending', attempts: 0 });
    expect(await runner.drain()).toBe(0);
    expect(seen).toHaveLength(1);
  });

  it('retries a failing job after a backoff, then fails it with the last error', async () => {
    const runner = new JobRunner(database.db, log, 1000);
    let calls = 0;
    runner.register('test.flaky', async () => {
      calls++;
      throw new Error(`attempt ${calls} broke`);
    });
    const id = await enqueueJob(database.db, { kind: 'test.flaky', maxAttempts: 2 });

    const { rows: before } = await database.db.query<{ t0: Date }>('SELECT now() AS t0');
    expect(await runner.drain()).toBe(1);
    expect(await job(id)).toMatchObject({ state: 'pending', attempts: 1, last_error: 'attempt 1 broke' });
    // Backoff 2^attempts seconds from the failure, which happened after t0 and before now().
    const { rows: backoff } = await database.db.query<{ after_t0: boolean; within: boolean }>(
      `SELECT run_at >= $2::timestamptz + interval '2 seconds' AS after_t0,
              run_at <= now() + interval '2 seconds' AS within
       FROM jobs WHERE id = $1`,
      [id, before[0]!.t0],
    );
    expect(backoff[0]).toEqual({ after_t0: true, within: true });
    // A job that is not due is not claimed.
    await database.db.query(`UPDATE jobs SET run_at = now() + interval '1 hour' WHERE id = $1`, [id]);
    expect(await runner.drain()).toBe(0);
    expect(calls).toBe(1);

    await database.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [id]);
    expect(await runner.drain()).toBe(1);
    expect(await job(id)).toMatchObject({
      state: 'failed',
      attempts: 2,
      last_error: 'attempt 2 broke',
      finished: true,
    });

    await database.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [id]);
    expect(await runner.drain()).toBe(0);
    expect(calls).toBe(2);
  });

  it('records a failure whatever was thrown, and goes on with the rest of the batch', async () => {
    const runner = new JobRunner(database.db, log, 1000);
    const ran: string[] = [];
    runner.register('test.weird', async (claimed) => {
      ran.push(String(claimed.payload.n));
      if (claimed.payload.n === 1) throw 'a bare string';
      if (claimed.payload.n === 2) throw undefined;
    });
    const ids = [];
    for (const n of [1, 2, 3])
      ids.push(await enqueueJob(database.db, { kind: 'test.weird', payload: { n } }));

    expect(await runner.drain()).toBe(3);
    expect(ran.sort()).toEqual(['1', '2', '3']);
    expect(await job(ids[0])).toMatchObject({ state: 'failed', last_error: 'a bare string' });
    expect(await job(ids[1])).toMatchObject({ state: 'failed', last_error: expect.any(String) });
    expect(await job(ids[2])).toMatchObject({ state: 'done' });
  });

  it("runs a failed group's jobs each alone, so only the job at fault fails", async () => {
    const runner = new JobRunner(database.db, log, 1000);
    const alone: number[] = [];
    runner.register('test.grouped', async (claimed) => {
      alone.push(claimed.id);
      if ((claimed.payload as { poisoned?: boolean }).poisoned) throw new Error('poisoned');
    });
    runner.registerGroup('test.grouped', async () => {
      throw new Error('the group statement was refused');
    });
    const healthy = await enqueueJob(database.db, { kind: 'test.grouped', payload: {} });
    const poisoned = await enqueueJob(database.db, { kind: 'test.grouped', payload: { poisoned: true } });

    await runner.drain();
    expect(alone.sort()).toEqual([healthy, poisoned].sort());
    expect(await job(healthy)).toMatchObject({ state: 'done' });
    expect(await job(poisoned)).toMatchObject({ state: 'failed', last_error: 'poisoned' });
  });

  it('leaves a group whose database was lost to be claimed again, running none of it alone', async () => {
    const runner = new JobRunner(database.db, log, 1000);
    const alone: number[] = [];
    runner.register('test.grouped', async (claimed) => {
      alone.push(claimed.id);
    });
    runner.registerGroup('test.grouped', async () => {
      throw Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      });
    });
    const first = await enqueueJob(database.db, { kind: 'test.grouped', payload: {} });
    const second = await enqueueJob(database.db, { kind: 'test.grouped', payload: {} });

    await runner.drain();
    expect(alone).toEqual([]);
    expect(await job(first)).toMatchObject({ state: 'running', finished: false });
    expect(await job(second)).toMatchObject({ state: 'running', finished: false });
  });

  it('runs each of 20 jobs exactly once with two runners draining at the same time', async () => {
    const runners = ['a', 'b'].map((name) => {
      const runner = new JobRunner(name === 'a' ? database.db : otherPool, log, 1000);
      runner.register('test.count', async (claimed) => {
        await database.db.query('SELECT pg_sleep(0.01)');
        await database.db.query('INSERT INTO job_runs (job_id, runner) VALUES ($1, $2)', [claimed.id, name]);
      });
      return runner;
    });
    for (let i = 0; i < 20; i++) await enqueueJob(database.db, { kind: 'test.count' });

    const counts = await Promise.all(runners.map((runner) => runner.drain()));
    expect(counts[0]! + counts[1]!).toBe(20);
    const { rows } = await database.db.query<{ job_id: number; runs: number }>(
      'SELECT job_id, count(*)::int AS runs FROM job_runs GROUP BY job_id',
    );
    expect(rows).toHaveLength(20);
    expect(rows.every((row) => row.runs === 1)).toBe(true);
    const done = await database.db.query(`SELECT 1 FROM jobs WHERE state = 'done'`);
    expect(done.rows).toHaveLength(20);
  });

  it('runs up to its concurrency of a batch at once, each job once, failures kept to their job', async () => {
    const runner = new JobRunner(database.db, log, 1000, 60, 3);
    let running = 0;
    let most = 0;
    runner.register('test.parallel', async (claimed) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running -= 1;
      if (claimed.payload.fail) throw new Error('refused');
      await database.db.query('INSERT INTO job_runs (job_id, runner) VALUES ($1, $2)', [claimed.id, 'p']);
    });
    const ids: number[] = [];
    for (let i = 0; i < 14; i++)
      ids.push((await enqueueJob(database.db, { kind: 'test.parallel', payload: { fail: i === 4 } }))!);

    expect(await runner.drain()).toBe(14);
    expect(most).toBe(3);
    const { rows } = await database.db.query<{ runs: number }>(
      'SELECT count(*)::int AS runs FROM job_runs GROUP BY job_id',
    );
    expect(rows).toHaveLength(13);
    expect(rows.every((row) => row.runs === 1)).toBe(true);
    expect(await job(ids[4])).toMatchObject({ state: 'failed', last_error: 'refused' });
    expect(await job(ids[5])).toMatchObject({ state: 'done' });
  });

  it('takes over a running job whose lease ran out (its worker died)', async () => {
    const runner = new JobRunner(database.db, log, 1000);
    let ran = 0;
    runner.register('test.orphan', async () => {
      ran++;
    });
    const id = await enqueueJob(database.db, { kind: 'test.orphan', maxAttempts: 3 });
    const live = await enqueueJob(database.db, { kind: 'test.orphan', maxAttempts: 3 });
    await database.db.query(
      `UPDATE jobs SET state = 'running', attempts = 1, locked_until = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    await database.db.query(
      `UPDATE jobs SET state = 'running', attempts = 1, locked_until = now() + interval '1 minute' WHERE id = $1`,
      [live],
    );
    expect(await runner.drain()).toBe(1);
    expect(ran).toBe(1);
    expect(await job(id)).toMatchObject({ state: 'done', attempts: 2 });
    expect(await job(live)).toMatchObject({ state: 'running', attempts: 1 });
  });

  it('renews the leases of a batch while it runs, so no other runner claims its jobs meanwhile', async () => {
    const runner = new JobRunner(database.db, log, 1000, 3);
    const other = new JobRunner(otherPool, log, 1000, 3);
    const runs: string[] = [];
    for (const [name, each] of [
      ['a', runner],
      ['b', other],
    ] as const) {
      each.register('test.long', async (claimed) => {
        runs.push(`${name}:${claimed.id}`);
        await new Promise((resolve) => setTimeout(resolve, 2500));
      });
    }
    const ids = [
      await enqueueJob(database.db, { kind: 'test.long' }),
      await enqueueJob(database.db, { kind: 'test.long' }),
    ];
    // One lane: the second job waits 2.5 s for the first, the batch outlives its 3 s lease.
    const draining = runner.drain();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(await other.drain()).toBe(0);
    expect(await draining).toBe(2);
    expect(runs.sort()).toEqual(ids.map((id) => `a:${id}`).sort());
    for (const id of ids) expect(await job(id)).toMatchObject({ state: 'done', attempts: 1 });
  }, 15_000);

  it('polls once started and stops cleanly', async () => {
    const runner = new JobRunner(database.db, log, 10);
    let resolveRan!: () => void;
    const ran = new Promise<void>((resolve) => {
      resolveRan = resolve;
    });
    runner.register('test.polled', async () => resolveRan());
    runner.start();
    await enqueueJob(database.db, { kind: 'test.polled' });
    await ran;
    await runner.stop();
    const id = await enqueueJob(database.db, { kind: 'test.polled' });
    // Stopped: nothing claims the new job; drain (called by hand) still can.
    expect(await job(id)).toMatchObject({ state: 'pending' });
  });
  it('lets a long job keep its lane while the jobs queued after it run, and waits for it to finish', async () => {
    const runner = new JobRunner(database.db, log, 50, 60, 2);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let slowEnded = false;
    runner.register('test.slow', async () => {
      await released;
      slowEnded = true;
    });
    runner.register('test.quick', async (claimed) => {
      await database.db.query('INSERT INTO job_runs (job_id, runner) VALUES ($1, $2)', [claimed.id, 'q']);
    });
    const slow = await enqueueJob(database.db, { kind: 'test.slow' });
    const first = await enqueueJob(database.db, { kind: 'test.quick' });
    const draining = runner.drain();
    await until(async () => (await job(first)).state === 'done');
    // Queued while the long job runs, well past the straggler allowance: worked in the meantime.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const later = await enqueueJob(database.db, { kind: 'test.quick' });
    await until(async () => (await job(later)).state === 'done');
    expect(slowEnded).toBe(false);
    expect(await job(slow)).toMatchObject({ state: 'running' });

    release();
    expect(await draining).toBe(3);
    expect(await job(slow)).toMatchObject({ state: 'done', attempts: 1 });
  }, 15_000);

  it('stops only once a long job in hand has finished', async () => {
    const runner = new JobRunner(database.db, log, 50, 60, 2);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    runner.register('test.slow', () => released);
    const slow = await enqueueJob(database.db, { kind: 'test.slow' });
    runner.start();
    await until(async () => (await job(slow)).state === 'running');
    await new Promise((resolve) => setTimeout(resolve, 1200));
    let stopped = false;
    const stopping = runner.stop().then(() => {
      stopped = true;
    });
    // Queued after the stop: left for a runner still running, not claimed by this one's lanes.
    const late = await enqueueJob(database.db, { kind: 'test.slow' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await job(slow)).toMatchObject({ state: 'done' });
    expect(await job(late)).toMatchObject({ state: 'pending', attempts: 0 });
  }, 15_000);
});

/** Polls `check` every 20 ms until it holds (the test's timeout bounds the wait). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}
