import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { closeChainBackends } from '../../src/chains/port.ts';
import { compose, environmentOf, type Ports, portsFor, type Rampart } from '../../src/compose.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { readMigrations } from '../../src/platform/db/migrate.ts';
import { freshDatabase, type TestDatabase } from './db.ts';

export const TEST_OPERATOR_TOKEN = 'test-operator-token-0123456789-abcdefghijkl';
export const TEST_MASTER_KEY = '11'.repeat(32);

export interface TestApp {
  app: FastifyInstance;
  /** The composed services the app runs on (compose.ts), to call domain functions directly. */
  ctx: Rampart;
  ports: Ports;
  database: TestDatabase;
  /** `http://127.0.0.1:<port>`: tests send real bytes over a real socket. */
  baseUrl: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Registers extra routes (test-only probes) before the app starts listening. */
  extend?: (app: FastifyInstance, ctx: Rampart) => void | Promise<void>;
  /** Implementations of outside systems in place of the environment's (compose.ts portsFor). */
  ports?: Partial<Ports>;
  database?: TestDatabase;
  /**
   * Adds the listening address to the public URLs, as `RAMPART_PUBLIC_URL=http://127.0.0.1:<port>`
   * would, so requests signed over `baseUrl` verify (default true).
   */
  loopbackPublicUrl?: boolean;
  /** Captures the app's log lines (at env LOG_LEVEL) instead of discarding them. */
  logStream?: { write(line: string): void };
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    RAMPART_MASTER_KEY: TEST_MASTER_KEY,
    RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    LOG_LEVEL: 'silent',
    RAMPART_DATA_DIR: 'data/test-unused',
    ...env,
  });
}

/** A full Rampart app on its own fresh database, listening on a random loopback port. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await freshDatabase());
  const config = testConfig(options.env);
  const runtimeConfig = { ...config, masterKey: config.masterKey!, operatorToken: config.operatorToken! };
  const defaults = await portsFor(config, database.db);
  const ports: Ports = { ...defaults, ...options.ports };
  const databases = { db: database.db, asyncCommitDb: database.asyncCommitDb };
  const ctx = compose(runtimeConfig, databases, ports, environmentOf(config));
  const migrations = await readMigrations();
  const app = await buildApp(ctx, {
    latestMigration: migrations.at(-1)?.version ?? '',
    logger: options.logStream !== undefined,
    ...(options.logStream ? { logStream: options.logStream } : {}),
  });
  await options.extend?.(app, ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  if (options.loopbackPublicUrl !== false) ctx.config.publicUrls.push(`http://127.0.0.1:${port}`);
  return {
    app,
    ctx,
    ports,
    database,
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      defaults.prices.close();
      closeChainBackends(ports.chains);
      if (!options.database) await database.drop();
    },
  };
}

export function operatorHeaders(token = TEST_OPERATOR_TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}
