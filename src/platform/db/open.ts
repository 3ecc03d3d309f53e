import pino from 'pino';
import type { Config } from '../../config.ts';
import { loggerOptions } from '../logger.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from './embedded.ts';
import { createPool, type Db } from './pool.ts';

export interface OpenedDatabase {
  /** DATABASE_URL, or the embedded server's: where another thread of ours connects to. */
  connectionString: string;
  db: Db;
  /** Same server; commits do not wait for the WAL flush (see AppContext.asyncCommitDb). */
  asyncCommitDb: Db;
  /**
   * Same server, for the background workers only, so their jobs never queue for a connection
   * behind the requests of a busy HTTP server (RAMPART_WORKER_POOL_SIZE connections).
   */
  workerDb: Db;
  /** Set when no DATABASE_URL was given and we started the embedded server. */
  embedded?: EmbeddedServer;
}

/**
 * DATABASE_URL's server, or the embedded one under the data directory. Kept free of the app's
 * heavy imports so the CLI can start PostgreSQL (a separate process) while the app modules load.
 */
export async function openDatabase(config: Config): Promise<OpenedDatabase> {
  const settings = {
    max: config.dbPoolSize,
    workerMax: config.workerPoolSize,
    statementTimeoutMs: config.dbStatementTimeoutMs,
  };
  if (config.databaseUrl) return pools(config.databaseUrl, settings);
  const log = pino(loggerOptions(config.logLevel) as pino.LoggerOptions);
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPgPort,
    portSetting: 'RAMPART_EMBEDDED_PG_PORT',
    log: (line) => log.debug({ postgres: line }, 'embedded postgres'),
  });
  return { ...pools(embedded.connectionString, settings), embedded };
}

function pools(
  connectionString: string,
  settings: { max: number; workerMax: number; statementTimeoutMs: number },
) {
  const { max, workerMax, statementTimeoutMs } = settings;
  return {
    connectionString,
    db: createPool({ connectionString, max, statementTimeoutMs }),
    // Small: it carries single-row inserts only.
    asyncCommitDb: createPool({
      connectionString,
      max: Math.max(2, Math.ceil(max / 2)),
      statementTimeoutMs,
      synchronousCommit: false,
      applicationName: 'rampart-async-commit',
    }),
    // Made empty: a pool connects on first use, so a process without workers opens none.
    workerDb: createPool({
      connectionString,
      max: workerMax,
      statementTimeoutMs,
      applicationName: 'rampart-worker',
    }),
  };
}

const POOL_END_GRACE_MS = 1000;

/** Ends the pools (bounded: a stuck client must not hold the exit) and stops the embedded server. */
export async function closeDatabase(opened: OpenedDatabase): Promise<void> {
  const { db, asyncCommitDb, workerDb, embedded } = opened;
  const grace = new Promise<void>((resolve) => setTimeout(resolve, POOL_END_GRACE_MS).unref());
  await Promise.race([
    Promise.all([db.end(), asyncCommitDb.end(), workerDb.end()]).catch(() => undefined),
    grace,
  ]);
  await embedded?.stop();
}
