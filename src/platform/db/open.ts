import pino from 'pino';
import type { Config } from '../../config.ts';
import { loggerOptions } from '../logger.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from './embedded.ts';
import { createPool, type Db } from './pool.ts';

export interface OpenedDatabase {
  db: Db;
  /** Same server; commits do not wait for the WAL flush (see AppContext.asyncCommitDb). */
  asyncCommitDb: Db;
  /** Set when no DATABASE_URL was given and we started the embedded server. */
  embedded?: EmbeddedServer;
}

/**
 * DATABASE_URL's server, or the embedded one under the data directory. Kept free of the app's
 * heavy imports so the CLI can start PostgreSQL (a separate process) while the app modules load.
 */
export async function openDatabase(config: Config): Promise<OpenedDatabase> {
  const settings = { max: config.dbPoolSize, statementTimeoutMs: config.dbStatementTimeoutMs };
  if (config.databaseUrl) return pools(config.databaseUrl, settings);
  const log = pino(loggerOptions(config.logLevel) as pino.LoggerOptions);
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPgPort,
    log: (line) => log.debug({ postgres: line }, 'embedded postgres'),
  });
  return { ...pools(embedded.connectionString, settings), embedded };
}

function pools(connectionString: string, settings: { max: number; statementTimeoutMs: number }) {
  return {
    db: createPool({ connectionString, ...settings }),
    // Small: it carries single-row inserts only.
    asyncCommitDb: createPool({
      connectionString,
      max: Math.max(2, Math.ceil(settings.max / 2)),
      statementTimeoutMs: settings.statementTimeoutMs,
      synchronousCommit: false,
      applicationName: 'rampart-async-commit',
    }),
  };
}
