import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Queryable } from '../../../src/platform/db/pool.ts';
import {
  registerFrequentPurges,
  registerGrowthAnalyze,
  registerHousekeeping,
  registerVacuum,
} from '../../../src/platform/jobs/housekeeping.ts';
import { JobRunner } from '../../../src/platform/jobs/runner.ts';
import { RAMPART_TABLES } from '../../../src/runtime.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => database.drop());

describe('platform.purge', () => {
  it('deletes expired idempotency keys and old finished jobs, keeps the rest, and schedules itself again', async () => {
    const db = database.db;
    await db.query(
      `INSERT INTO idempotency_keys (scope, key, request_hash, response_status, response_body, expires_at) VALUES
       ('s', 'expired', 'h', 200, '{}', now() - interval '1 second'),
       ('s', 'alive', 'h', 200, '{}', now() + interval '1 hour')`,
    );
    await db.query(
      `INSERT INTO jobs (kind, state, finished_at) VALUES
       ('test.old', 'done', now() - interval '8 days'),
       ('test.oldFailed', 'failed', now() - interval '8 days'),
       ('test.recent', 'done', now() - interval '1 day'),
       ('platform.example', 'done', now() - interval '2 hours'),
       ('platform.example', 'done', now() - interval '10 minutes'),
       ('platform.example', 'failed', now() - interval '2 hours')`,
    );

    const runner = new JobRunner(db, pino({ level: 'silent' }), 1000);
    expect(await registerHousekeeping(runner, db)).toEqual(expect.any(Number));
    // A second process registering at the same time queues no second purge.
    expect(
      await registerHousekeeping(new JobRunner(db, pino({ level: 'silent' }), 1000), db),
    ).toBeUndefined();

    expect(await runner.drain()).toBe(1);

    const keys = await db.query<{ key: string }>('SELECT key FROM idempotency_keys ORDER BY key');
    expect(keys.rows.map((row) => row.key)).toEqual(['alive']);
    const kinds = await db.query<{ kind: string; state: string; later: boolean }>(
      `SELECT kind, state, run_at > now() + interval '50 minutes' AS later FROM jobs ORDER BY id`,
    );
    // Housekeeping's own successful runs go after an hour; its failures stay the week.
    expect(kinds.rows).toEqual([
      { kind: 'test.recent', state: 'done', later: false },
      { kind: 'platform.example', state: 'done', later: false },
      { kind: 'platform.example', state: 'failed', later: false },
      { kind: 'platform.purge', state: 'done', later: false },
      { kind: 'platform.purge', state: 'pending', later: true },
    ]);
  });
});

describe('platform.purge of a large jobs table', () => {
  it('is not cut short by the pool’s request-sized statement timeout', async () => {
    // Stands for a pass over tens of millions of jobs: the DELETE takes longer than the pool allows.
    await database.db.query(
      `CREATE FUNCTION slow_delete() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN PERFORM pg_sleep(0.6); RETURN NULL; END $$`,
    );
    await database.db.query(
      'CREATE TRIGGER slow_delete AFTER DELETE ON jobs FOR EACH STATEMENT EXECUTE FUNCTION slow_delete()',
    );
    const pool = createPool({ connectionString: database.url, max: 1, statementTimeoutMs: 300 });
    try {
      await database.db.query(`DELETE FROM jobs WHERE kind = 'platform.purge'`);
      await database.db.query(
        `INSERT INTO jobs (kind, state, finished_at) VALUES ('test.stale', 'done', now() - interval '8 days')`,
      );
      const runner = new JobRunner(pool, pino({ level: 'silent' }), 1000);
      await registerHousekeeping(runner, pool);
      expect(await runner.drain()).toBe(1);
      const { rows } = await database.db.query<{ kind: string; state: string }>(
        `SELECT kind, state FROM jobs WHERE kind IN ('test.stale', 'platform.purge') ORDER BY id`,
      );
      expect(rows).toEqual([
        { kind: 'platform.purge', state: 'done' },
        { kind: 'platform.purge', state: 'pending' },
      ]);
      const after = await pool.query<{ timeout: string }>(
        `SELECT current_setting('statement_timeout') AS timeout`,
      );
      expect(after.rows).toEqual([{ timeout: '300ms' }]);
    } finally {
      await pool.end();
      await database.db.query('DROP TRIGGER slow_delete ON jobs');
      await database.db.query('DROP FUNCTION slow_delete()');
    }
  });
});

describe('platform.purge that fails', () => {
  it('has queued the next purge an hour later all the same', async () => {
    const db = database.db;
    await db.query(`DELETE FROM jobs WHERE kind = 'platform.purge'`);
    const runner = new JobRunner(db, pino({ level: 'silent' }), 1000);
    const failing = async () => {
      throw new Error('a module purge failed');
    };
    await registerHousekeeping(runner, db, [failing]);
    await runner.drain();
    const { rows } = await db.query<{ state: string; later: boolean }>(
      `SELECT state, run_at > now() + interval '50 minutes' AS later FROM jobs WHERE kind = 'platform.purge' ORDER BY id`,
    );
    expect(rows).toEqual([
      { state: 'failed', later: false },
      { state: 'pending', later: true },
    ]);
  });
});

describe('platform.purgeFrequent', () => {
  it("runs the modules' purges in turn, then queues itself five seconds later, once across processes", async () => {
    const db = database.db;
    const ran: string[] = [];
    const purges = [async () => void ran.push('first'), async () => void ran.push('second')];
    const runner = new JobRunner(db, pino({ level: 'silent' }), 1000);
    expect(await registerFrequentPurges(runner, db, purges)).toEqual(expect.any(Number));
    expect(
      await registerFrequentPurges(new JobRunner(db, pino({ level: 'silent' }), 1000), db, purges),
    ).toBeUndefined();
    expect(await runner.drain()).toBe(1);
    expect(ran).toEqual(['first', 'second']);
    const { rows } = await db.query<{ state: string; in_seconds: number }>(
      `SELECT state, round(extract(epoch FROM run_at - now()))::int AS in_seconds
       FROM jobs WHERE kind = 'platform.purgeFrequent' ORDER BY id`,
    );
    expect(rows.map((row) => row.state)).toEqual(['done', 'pending']);
    expect(rows[1]!.in_seconds).toBeGreaterThanOrEqual(3);
    expect(rows[1]!.in_seconds).toBeLessThanOrEqual(5);
  });
});

describe('platform.vacuum', () => {
  it('vacuums the hot tables holding dead rows, leaves the others, then queues itself a minute later', async () => {
    const db = database.db;
    // Dead row versions to clear: finished jobs updated in place (200, over 50 + a twentieth).
    const client = await db.connect();
    try {
      await client.query(
        `INSERT INTO jobs (kind, state) SELECT 'test.churn', 'pending' FROM generate_series(1, 200)`,
      );
      await client.query(`UPDATE jobs SET state = 'done', finished_at = now() WHERE kind = 'test.churn'`);
      // Statistics reach other sessions when a backend flushes them, at most once a second.
      await client.query('SELECT pg_stat_force_next_flush()');
    } finally {
      client.release();
    }
    const runner = new JobRunner(db, pino({ level: 'silent' }), 1000);
    expect(await registerVacuum(runner, db, ['jobs', 'ledger_balances'], RAMPART_TABLES)).toEqual(
      expect.any(Number),
    );
    expect(await runner.drain()).toBe(1);
    const { rows } = await db.query<{ relname: string; vacuumed: boolean; analyzed: boolean }>(
      `SELECT relname, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed
       FROM pg_stat_user_tables WHERE relname IN ('jobs', 'ledger_balances') ORDER BY relname`,
    );
    // ledger_balances has no dead rows and did not change: neither vacuumed nor analyzed.
    expect(rows).toEqual([
      { relname: 'jobs', vacuumed: true, analyzed: true },
      { relname: 'ledger_balances', vacuumed: false, analyzed: false },
    ]);
    const next = await db.query<{ state: string; later: boolean }>(
      `SELECT state, run_at > now() + interval '50 seconds' AS later FROM jobs WHERE kind = 'platform.vacuum' ORDER BY id`,
    );
    expect(next.rows).toEqual([
      { state: 'done', later: false },
      { state: 'pending', later: true },
    ]);
  });

  it("analyzes any other table of ours that changed by a tenth since its last statistics, not another application's", async () => {
    const db = database.db;
    await db.query('ANALYZE accounts');
    const client = await db.connect();
    try {
      await client.query(
        `INSERT INTO idempotency_keys (scope, key, request_hash, response_status, response_body, expires_at)
         SELECT 'grown', 'k' || n, 'h', 200, '{}', now() + interval '1 hour' FROM generate_series(1, 200) AS n`,
      );
      // Another application's table in the same database, changed as much.
      await client.query('CREATE TABLE other_app_rows (n int)');
      await client.query('INSERT INTO other_app_rows SELECT generate_series(1, 200)');
      await client.query('SELECT pg_stat_force_next_flush()');
    } finally {
      client.release();
    }
    try {
      const runner = new JobRunner(db, pino({ level: 'silent' }), 1000);
      await db.query(`DELETE FROM jobs WHERE kind = 'platform.vacuum' AND state = 'pending'`);
      await registerVacuum(runner, db, [], RAMPART_TABLES);
      expect(await runner.drain()).toBe(1);
      const analyzed = await db.query<{ relname: string; fresh: boolean }>(
        `SELECT relname, n_mod_since_analyze = 0 AS fresh FROM pg_stat_user_tables
         WHERE relname IN ('idempotency_keys', 'accounts', 'other_app_rows') ORDER BY relname`,
      );
      expect(analyzed.rows).toEqual([
        { relname: 'accounts', fresh: true },
        { relname: 'idempotency_keys', fresh: true },
        { relname: 'other_app_rows', fresh: false },
      ]);
    } finally {
      await db.query('DROP TABLE other_app_rows');
    }
  });

  it('refuses anything but a plain table name', () => {
    const runner = new JobRunner(database.db, pino({ level: 'silent' }), 1000);
    expect(() => registerVacuum(runner, database.db, ['jobs; DROP TABLE jobs'], [])).toThrow(
      /not a table name/,
    );
    expect(() => registerVacuum(runner, database.db, [], ['jobs; DROP TABLE jobs'])).toThrow(
      /not a table name/,
    );
    expect(() => registerGrowthAnalyze(runner, database.db, ["jobs'"])).toThrow(/not a table name/);
    expect(() => registerGrowthAnalyze(runner, database.db, ['jobs'], ["jobs'"])).toThrow(/not a table name/);
  });
});

describe('platform.analyzeGrown', () => {
  it('analyzes the tables that more than doubled since their statistics, not the ones that only churned nor large ones unless uncapped, then queues itself two seconds later', async () => {
    const db = database.db;
    const reltuplesOf = async (q: Queryable, table: string) =>
      (await q.query<{ n: number }>('SELECT reltuples AS n FROM pg_class WHERE relname = $1', [table]))
        .rows[0]!.n;
    let jobsAnalyzed = 0;
    const client = await db.connect();
    try {
      // card_spend: analyzed empty, then grown to 300 rows (over 50 + twice 0).
      await client.query('ANALYZE card_spend');
      await client.query(
        `INSERT INTO card_spend (order_id, spend_key, amount_usd, at, running_usd)
         SELECT 'WO_' || n, 'key', 1, now(), n FROM generate_series(1, 300) AS n`,
      );
      // jobs: 400 rows analyzed, then every row updated and 100 added: changed, not doubled.
      await client.query(
        `INSERT INTO jobs (kind, state) SELECT 'test.churn2', 'done' FROM generate_series(1, 400)`,
      );
      await client.query('ANALYZE jobs');
      jobsAnalyzed = await reltuplesOf(client, 'jobs');
      await client.query(`UPDATE jobs SET attempts = attempts + 1 WHERE kind = 'test.churn2'`);
      await client.query(
        `INSERT INTO jobs (kind, state) SELECT 'test.churn2', 'done' FROM generate_series(1, 100)`,
      );
      // reservation_uses and signature_replays: analyzed at 5,000 rows, then grown to 12,000:
      // doubled, but only the uncapped one is analyzed again.
      await client.query(
        `INSERT INTO reservation_uses (reservation_id, used_at) SELECT 'RS_GROWN_' || n, now() FROM generate_series(1, 5000) AS n`,
      );
      await client.query(
        `INSERT INTO signature_replays (signed_at, signature, expires_at)
         SELECT now(), 'grown' || n, now() + interval '1 hour' FROM generate_series(1, 5000) AS n`,
      );
      await client.query('ANALYZE reservation_uses, signature_replays');
      await client.query(
        `INSERT INTO reservation_uses (reservation_id, used_at) SELECT 'RS_GROWN_' || n, now() FROM generate_series(5001, 12000) AS n`,
      );
      await client.query(
        `INSERT INTO signature_replays (signed_at, signature, expires_at)
         SELECT now(), 'grown' || n, now() + interval '1 hour' FROM generate_series(5001, 12000) AS n`,
      );
      await client.query('SELECT pg_stat_force_next_flush()');
    } finally {
      client.release();
    }
    const runner = new JobRunner(db, pino({ level: 'silent' }), 1000);
    await db.query(`DELETE FROM jobs WHERE kind LIKE 'platform.%' AND state = 'pending'`);
    expect(await registerGrowthAnalyze(runner, db, RAMPART_TABLES, ['signature_replays'])).toEqual(
      expect.any(Number),
    );
    expect(await runner.drain()).toBe(1);
    expect(await reltuplesOf(db, 'card_spend')).toBe(300);
    expect(await reltuplesOf(db, 'reservation_uses')).toBe(5000);
    expect(await reltuplesOf(db, 'signature_replays')).toBe(12000);
    expect(await reltuplesOf(db, 'jobs')).toBe(jobsAnalyzed);
    const next = await db.query<{ state: string; soon: boolean }>(
      `SELECT state, run_at BETWEEN now() + interval '1 second' AND now() + interval '3 seconds' AS soon
       FROM jobs WHERE kind = 'platform.analyzeGrown' ORDER BY id`,
    );
    expect(next.rows).toEqual([
      { state: 'done', soon: false },
      { state: 'pending', soon: true },
    ]);
  });
});

describe('maintenance statements', () => {
  it('skip a table another maintenance statement has in hand, instead of waiting for it', async () => {
    const setup = await database.db.connect();
    const holder = await database.db.connect();
    try {
      for (const table of ['busy_table', 'free_table']) {
        await setup.query(`CREATE TABLE ${table} (n int)`);
        await setup.query(`INSERT INTO ${table} SELECT generate_series(1, 100)`);
      }
      await setup.query('SELECT pg_stat_force_next_flush()');
      // The lock a VACUUM or ANALYZE of busy_table holds while it runs.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE busy_table IN SHARE UPDATE EXCLUSIVE MODE');
      await database.db.query(`DELETE FROM jobs WHERE kind LIKE 'platform.%' AND state = 'pending'`);
      const runner = new JobRunner(database.db, pino({ level: 'silent' }), 1000);
      await registerGrowthAnalyze(runner, database.db, ['busy_table', 'free_table']);
      const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3000));
      expect(await Promise.race([runner.drain(), waited])).toBe(1);
      // ANALYZE sets reltuples in its own transaction (never analyzed: -1).
      const { rows } = await database.db.query<{ relname: string; analyzed: boolean }>(
        `SELECT relname, reltuples >= 0 AS analyzed FROM pg_class
         WHERE relname IN ('busy_table', 'free_table') ORDER BY relname`,
      );
      expect(rows).toEqual([
        { relname: 'busy_table', analyzed: false },
        { relname: 'free_table', analyzed: true },
      ]);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
      await setup.query('DROP TABLE busy_table, free_table');
      setup.release();
    }
  });

  it('run at autovacuum’s pace, without the pool’s statement timeout, and leave the connection as it was', async () => {
    // A function in an expression index runs as ANALYZE samples the rows: it reports the
    // settings the ANALYZE runs under, as a notice to the connection that sent it.
    await database.db.query(
      `CREATE FUNCTION maintenance_settings(n int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$
       BEGIN
         RAISE NOTICE 'settings %/%', current_setting('vacuum_cost_delay'), current_setting('statement_timeout');
         RETURN n;
       END $$`,
    );
    const setup = await database.db.connect();
    try {
      await setup.query('CREATE TABLE paced (n int)');
      await setup.query('CREATE INDEX paced_settings ON paced (maintenance_settings(n))');
      // 100 rows, never analyzed: more than doubled, so analyzeGrown takes it.
      await setup.query('INSERT INTO paced SELECT generate_series(1, 100)');
      await setup.query('SELECT pg_stat_force_next_flush()');
    } finally {
      setup.release();
    }
    const pool = createPool({ connectionString: database.url, max: 1, statementTimeoutMs: 1000 });
    const notices: string[] = [];
    pool.on('connect', (client) => client.on('notice', (notice) => notices.push(notice.message ?? '')));
    try {
      await database.db.query(`DELETE FROM jobs WHERE kind LIKE 'platform.%' AND state = 'pending'`);
      const runner = new JobRunner(pool, pino({ level: 'silent' }), 1000);
      await registerGrowthAnalyze(runner, pool, ['paced']);
      expect(await runner.drain()).toBe(1);
      expect(notices.length).toBeGreaterThan(0);
      expect(new Set(notices)).toEqual(new Set(['settings 2ms/10min']));
      const after = await pool.query<{ delay: string; timeout: string }>(
        `SELECT current_setting('vacuum_cost_delay') AS delay, current_setting('statement_timeout') AS timeout`,
      );
      expect(after.rows).toEqual([{ delay: '0', timeout: '1s' }]);
    } finally {
      await pool.end();
      await database.db.query('DROP TABLE paced');
      await database.db.query('DROP FUNCTION maintenance_settings(int)');
    }
  });
});
