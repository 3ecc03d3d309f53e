/**
 * The cold-start figure: Rampart with its embedded PostgreSQL, started on a data directory that
 * already exists (created by an untimed first start), timed from spawn to the first 200 on /readyz.
 * "Cold" means a new process and a stopped database; the OS file cache stays warm, as it would be
 * after a restart on the same host.
 */
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { BenchConfig } from './config.ts';
import { assertPortFree, startServer } from './server-process.ts';
import { rampartSpec } from './targets.ts';

export interface ColdStartResult {
  readyAfterMs: number[];
  /** Starts whose SIGTERM did not end the process (and its postgres) by itself. */
  uncleanStops: number;
}

export async function measureColdStart(config: BenchConfig, runDir: string): Promise<ColdStartResult> {
  await assertPortFree(config.embeddedPgPort);
  const dataDir = path.join(runDir, 'cold-start-data');
  await mkdir(dataDir, { recursive: true });
  // Under root the embedded server runs as the postgres user, which must reach <dataDir>/pg.
  await chmod(runDir, 0o755);
  await chmod(dataDir, 0o755);
  const common = { config, runDir, databaseUrl: undefined, dataDir };

  let uncleanStops = 0;
  const creating = await startServer(
    await rampartSpec({ ...common, readyTimeoutMs: 120_000, logName: 'cold-start-create.log' }),
  );
  if (!(await creating.stop()).clean) uncleanStops += 1;

  const readyAfterMs: number[] = [];
  for (let attempt = 1; attempt <= config.coldStartRuns; attempt += 1) {
    await assertPortFree(config.embeddedPgPort);
    const server = await startServer(
      await rampartSpec({ ...common, readyTimeoutMs: 60_000, logName: `cold-start-${attempt}.log` }),
    );
    readyAfterMs.push(server.readyAfterMs);
    if (!(await server.stop()).clean) uncleanStops += 1;
  }
  return { readyAfterMs, uncleanStops };
}
