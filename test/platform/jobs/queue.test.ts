import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withTransaction } from '../../../src/platform/db/pool.ts';
import { enqueueJob } from '../../../src/platform/jobs/queue.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => database.drop());
beforeEach(async () => {
  await database.db.query('TRUNCATE jobs');
});

interface JobRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  state: string;
  attempts: number;
  max_attempts: number;
  singleton_key: string | null;
  run_at_ms: number;
}

async function jobs(): Promise<JobRow[]> {
  const { rows } = await database.db.query<JobRow>(
    `SELECT id, kind, payload, state, attempts, max_attempts, singleton_key,
            (extract(epoch FROM run_at) * 1000)::bigint AS run_at_ms
     FROM jobs ORDER BY id`,
  );
  return rows;
}

class Rollback extends Error {}

describe('enqueueJob', () => {
  it('adds nothing when the surrounding transaction rolls back', async () => {
    await expect(
      withTransaction(database.db, async (tx) => {
        const id = await enqueueJob(tx, { kind: 'test.rolledBack' });
        expect(id).toEqual(expect.any(Number));
        throw new Rollback('change failed');
      }),
    ).rejects.toThrow(Rollback);
    expect(await jobs()).toEqual([]);
  });

  it('adds the job when the transaction commits, with defaults', async () => {
    const id = await withTransaction(database.db, (tx) => enqueueJob(tx, { kind: 'test.committed' }));
    const rows = await jobs();
    expect(rows).toEqual([
      expect.objectContaining({
        id,
        kind: 'test.committed',
        payload: {},
        state: 'pending',
        attempts: 0,
        max_attempts: 1,
        singleton_key: null,
      }),
    ]);
  });

  it('keeps the payload, the attempts limit and the run time', async () => {
    const runAtMs = Date.UTC(2030, 0, 1, 12, 0, 0, 250);
    await enqueueJob(database.db, {
      kind: 'test.later',
      payload: { userId: 'US_X', amount: '12.34', nested: { ok: true } },
      runAtMs,
      maxAttempts: 5,
    });
    expect(await jobs()).toEqual([
      expect.objectContaining({
        payload: { userId: 'US_X', amount: '12.34', nested: { ok: true } },
        max_attempts: 5,
        run_at_ms: runAtMs,
      }),
    ]);
  });

  it('keeps one pending job per singleton key, and allows the next once it is no longer pending', async () => {
    const first = await enqueueJob(database.db, { kind: 'test.single', singletonKey: 'single' });
    const second = await enqueueJob(database.db, { kind: 'test.single', singletonKey: 'single' });
    const other = await enqueueJob(database.db, { kind: 'test.single', singletonKey: 'other' });
    expect(first).toEqual(expect.any(Number));
    expect(second).toBeUndefined();
    expect(other).toEqual(expect.any(Number));
    expect((await jobs()).filter((job) => job.singleton_key === 'single')).toHaveLength(1);

    await database.db.query(`UPDATE jobs SET state = 'running' WHERE id = $1`, [first]);
    const next = await enqueueJob(database.db, { kind: 'test.single', singletonKey: 'single' });
    expect(next).toEqual(expect.any(Number));
    expect(next).not.toBe(first);
    const states = (await jobs()).filter((job) => job.singleton_key === 'single').map((job) => job.state);
    expect(states).toEqual(['running', 'pending']);
  });

  it('keeps one pending job when many enqueue the same singleton at once', async () => {
    const ids = await Promise.all(
      Array.from({ length: 8 }, () => enqueueJob(database.db, { kind: 'test.race', singletonKey: 'race' })),
    );
    expect(ids.filter((id) => id !== undefined)).toHaveLength(1);
    expect(await jobs()).toHaveLength(1);
  });
});
