/** The bench database: dropped and created anew each run so no earlier run's rows or bloat count. */
import pg from 'pg';
import { type BenchConfig, databaseUrl } from './config.ts';

export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'rampart-bench' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * `name` must be a plain identifier (config.ts checks BENCH_DB_NAME; suffixes are ours), as must
 * `template` (a copy of that database, which nobody may be connected to).
 */
export async function recreateDatabase(config: BenchConfig, name: string, template?: string): Promise<void> {
  await withClient(`${config.pgServerUrl}/postgres`, async (client) => {
    // FORCE: a server left over from an interrupted run must not keep the old database alive.
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  });
}

export async function dropDatabase(config: BenchConfig, name: string): Promise<void> {
  await withClient(`${config.pgServerUrl}/postgres`, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}

export async function recreateBenchDatabase(config: BenchConfig): Promise<void> {
  await recreateDatabase(config, config.databaseName);
}

/** Writes dirty buffers out now, so a bulk load's checkpoint does not land in a later measurement. */
export async function checkpoint(url: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query('CHECKPOINT');
  });
}

/**
 * Waits until the job runner has no due work left (jobs due within `aheadMs` count, so a chain
 * send queued a moment ago is waited for too; periodic singleton jobs do not). Some scenarios
 * leave work behind every request (card orders are processed by the worker); measuring the next
 * scenario while that drains would charge it for the previous one's work. Answers the ms waited
 * and the jobs still due when `maxMs` ran out.
 */
export async function waitForDueJobs(
  url: string,
  maxMs: number,
  aheadMs = 3000,
): Promise<{ waitedMs: number; left: number }> {
  const startedAt = performance.now();
  return withClient(url, async (client) => {
    for (;;) {
      const { rows } = await client.query<{ due: string }>(
        `SELECT count(*) AS due FROM jobs WHERE state IN ('pending', 'running') AND singleton_key IS NULL
           AND run_at <= now() + make_interval(secs => $1::float8 / 1000)`,
        [aheadMs],
      );
      const left = Number(rows[0]?.due ?? 0);
      const waitedMs = performance.now() - startedAt;
      if (left === 0 || waitedMs > maxMs) return { waitedMs, left };
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
}

export async function postgresVersion(config: BenchConfig): Promise<string> {
  return withClient(databaseUrl(config), async (client) => {
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return result.rows[0]?.server_version ?? 'unknown';
  });
}

/** A client on the PostgreSQL server's maintenance database, for statements about the bench database. */
export async function withDatabase<T>(
  config: BenchConfig,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  return withClient(`${config.pgServerUrl}/postgres`, fn);
}

/**
 * One bench run per database at a time: a second run would drop the first one's database under it
 * and both would measure each other's load. Held on its own connection until release().
 */
export async function lockBenchDatabase(
  config: BenchConfig,
  onWait: () => void,
  maxWaitMs = 10 * 60_000,
): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({
    connectionString: `${config.pgServerUrl}/postgres`,
    application_name: 'rampart-bench-lock',
  });
  await client.connect();
  const deadline = Date.now() + maxWaitMs;
  let waited = false;
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>(
      "SELECT pg_try_advisory_lock(hashtext('rampart-bench'), hashtext($1)) AS locked",
      [config.databaseName],
    );
    if (rows[0]?.locked) break;
    if (Date.now() > deadline) {
      await client.end();
      throw new Error(
        `another bench run kept database ${config.databaseName} for over ${maxWaitMs / 60_000} min`,
      );
    }
    if (!waited) onWait();
    waited = true;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  return { release: () => client.end() };
}
