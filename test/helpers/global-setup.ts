import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/platform/db/embedded.ts';

let embedded: EmbeddedServer | undefined;

/**
 * Tests use DATABASE_URL's server when set (CI: the machine's PostgreSQL); otherwise they start
 * the embedded server once under ./data/test-pg. Each test file then creates its own database.
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({
      dataDir: path.resolve('data/test-pg'),
      port: Number(process.env.RAMPART_TEST_PG_PORT ?? 54339),
      portSetting: 'RAMPART_TEST_PG_PORT',
    });
    adminUrl = embedded.connectionString;
  }
  project.provide('adminDatabaseUrl', adminUrl);
  return async () => {
    await embedded?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}
