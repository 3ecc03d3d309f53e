import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { deliveryTiming } from '../../../src/callbacks/limits.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { isDatabaseBusy, isDatabaseUnavailable } from '../../../src/platform/db/errors.ts';
import { createPool } from '../../../src/platform/db/pool.ts';
import { translateError } from '../../../src/platform/http/error-handler.ts';
import { enqueueJob } from '../../../src/platform/jobs/queue.ts';
import { JobRunner } from '../../../src/platform/jobs/runner.ts';
import { freshDatabase } from '../../helpers/db.ts';
import { freePort } from '../../helpers/process.ts';

/**
 * The platform pieces the fault tests (test/faults/) rely on: database outages answered as a
 * transient 503 rather than a 500, and RAMPART_JOB_LEASE_SECONDS.
 */
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe('database unavailable', () => {
  it('recognises what pg raises when the server is gone, and nothing else', async () => {
    const pool = createPool({
      connectionString: `postgres://x:y@127.0.0.1:${await freePort()}/none`,
      max: 1,
      statementTimeoutMs: 1000,
    });
    cleanups.push(() => pool.end());
    const refused = await pool.query('SELECT 1').catch((error: unknown) => error);
    expect(isDatabaseUnavailable(refused)).toBe(true);
    for (const error of [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]),
    ])
      expect(isDatabaseUnavailable(error), error.message).toBe(true);
    for (const error of [
      Object.assign(new Error('duplicate key'), { code: '23505' }),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      new Error('something else'),
      'Connection terminated',
      null,
    ])
      expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('becomes a transient 503 ServiceUnavailableException, not a 500', () => {
    const apiError = translateError(Object.assign(new Error('gone'), { code: '57P01' }));
    expect(apiError?.toEnvelope('test_x')).toMatchObject({
      type: 'ServiceUnavailableException',
      errorCode: 'service.databaseUnavailable',
      transient: true,
    });
    expect(apiError?.status).toBe(503);
  });
});

describe('database busy', () => {
  it('answers a statement cancelled by its timeout as a transient 503, and leaves other errors alone', async () => {
    const database = await freshDatabase();
    cleanups.push(() => database.drop());
    const pool = createPool({ connectionString: database.url, max: 1, statementTimeoutMs: 50 });
    cleanups.push(() => pool.end());
    const cancelled = await pool.query('SELECT pg_sleep(1)').catch((error: unknown) => error);
    expect(isDatabaseBusy(cancelled)).toBe(true);
    expect(isDatabaseUnavailable(cancelled)).toBe(false);
    const apiError = translateError(cancelled);
    expect(apiError?.status).toBe(503);
    expect(apiError?.toEnvelope('test_x')).toMatchObject({
      type: 'ServiceUnavailableException',
      errorCode: 'service.databaseBusy',
      transient: true,
    });
    for (const code of ['40001', '40P01'])
      expect(isDatabaseBusy(Object.assign(new Error('retry'), { code }))).toBe(true);
    for (const error of [Object.assign(new Error('duplicate key'), { code: '23505' }), null, 'x'])
      expect(isDatabaseBusy(error)).toBe(false);
  });
});

describe('RAMPART_JOB_LEASE_SECONDS', () => {
  it('defaults to 60, accepts 3 to 3600 and refuses anything else naming the variable', () => {
    expect(loadConfig({}).jobLeaseSeconds).toBe(60);
    expect(loadConfig({ RAMPART_JOB_LEASE_SECONDS: '3' }).jobLeaseSeconds).toBe(3);
    for (const raw of ['2', '3601', '1.5', 'soon', '-5']) {
      expect(() => loadConfig({ RAMPART_JOB_LEASE_SECONDS: raw })).toThrow(ConfigError);
      expect(() => loadConfig({ RAMPART_JOB_LEASE_SECONDS: raw })).toThrow(/^RAMPART_JOB_LEASE_SECONDS: /);
    }
  });

  it('shortens callback leases only below their own, keeping the deadline inside the lease', () => {
    expect(deliveryTiming(60)).toEqual({ leaseSeconds: 15, timeoutMs: 10_000 });
    expect(deliveryTiming(15)).toEqual({ leaseSeconds: 15, timeoutMs: 10_000 });
    expect(deliveryTiming(3)).toEqual({ leaseSeconds: 3, timeoutMs: 2000 });
  });

  it('is the lease the JobRunner puts on a claimed job', async () => {
    const database = await freshDatabase();
    cleanups.push(() => database.drop());
    const runner = new JobRunner(database.db, pino({ level: 'silent' }), 1000, 7);
    let remaining = Number.NaN;
    runner.register('test.lease', async (job) => {
      const { rows } = await database.db.query<{ seconds: number }>(
        'SELECT extract(epoch FROM locked_until - now())::float8 AS seconds FROM jobs WHERE id = $1',
        [job.id],
      );
      remaining = rows[0]!.seconds;
    });
    await enqueueJob(database.db, { kind: 'test.lease' });
    expect(await runner.drain()).toBe(1);
    // Claimed moments ago with a 7 s lease, not the default 60 s.
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThanOrEqual(7);
  });
});
