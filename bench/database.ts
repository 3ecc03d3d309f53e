/** The bench database: dropped and created anew each run so no earlier run's rows or bloat count. */
import pg from 'pg';
import { type BenchConfig, databaseUrl } from './config.ts';

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'rampart-bench' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function recreateBenchDatabase(config: BenchConfig): Promise<void> {
  await withClient(`${config.pgServerUrl}/postgres`, async (client) => {
    // FORCE: a server left over from an interrupted run must not keep the old database alive.
    await client.query(`DROP DATABASE IF EXISTS ${config.databaseName} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${config.databaseName}`);
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
