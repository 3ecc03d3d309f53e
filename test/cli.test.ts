import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_MASTER_KEY, TEST_OPERATOR_TOKEN } from './helpers/app.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { freePort, spawnRampart, tryConnect } from './helpers/process.ts';

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

/** `rampart serve` on a fresh, unmigrated database and a free port. */
async function serveOnFreshDatabase(logLevel: string) {
  const database = await freshDatabase({ migrated: false });
  databases.push(database);
  const port = await freePort();
  const run = spawnRampart(['serve'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    RAMPART_MASTER_KEY: TEST_MASTER_KEY,
    RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    RAMPART_DATA_DIR: 'data/test-unused',
    LOG_LEVEL: logLevel,
  });
  return { database, port, run };
}

describe('rampart commands', () => {
  it('prints the usage on stdout and exits 0 when asked for it', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const run = spawnRampart([flag], {});
      expect((await run.exited).code, flag).toBe(0);
      expect(run.stdout()).toMatch(
        /^usage: rampart <command>\n[\s\S]*\n {2}operator <METHOD> <path> \[json\][\s\S]*\n$/,
      );
      expect(run.stderr()).toBe('');
    }
  });

  it('prints the usage on stderr and exits 2 for an unknown command', async () => {
    const run = spawnRampart(['serv'], {});
    expect((await run.exited).code).toBe(2);
    expect(run.stderr()).toMatch(/^usage: rampart <command>\n/);
    expect(run.stdout()).toBe('');
  });

  it('`operator` prints the status and body as one line, newline included', async () => {
    const t = await startTestApp();
    try {
      const call = spawnRampart(['operator', 'GET', '/operator/v1/sandbox/clock'], {
        RAMPART_URL: t.baseUrl,
        RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      });
      expect((await call.exited).code).toBe(0);
      expect(call.stdout()).toMatch(/^200 \{"offsetSeconds":0,"now":\d+\}\n$/);
      expect(call.stderr()).toBe('');
    } finally {
      await t.close();
    }
  });
});

describe('rampart process', () => {
  it('stops on a bad setting with exactly one stderr line naming it and a non-zero exit', async () => {
    const run = spawnRampart(['serve'], { PORT: 'abc' });
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    const lines = run
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('PORT');
    expect(lines[0]).toContain('abc');
    expect(run.stdout()).toBe('');
  });

  it('names the variable for another bad setting too (not a fixed message)', async () => {
    const run = spawnRampart(['serve'], { RAMPART_ENV: 'staging' });
    expect((await run.exited).code).toBe(1);
    const lines = run
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('RAMPART_ENV');
    expect(lines[0]).not.toContain('PORT');
  });

  it('serves, then drains and exits 0 on SIGTERM', async () => {
    const { database, port, run } = await serveOnFreshDatabase('warn');
    try {
      await run.waitForStdout('is up at');
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      // It migrated the empty database on start.
      const { rows } = await database.db.query('SELECT version FROM schema_migrations');
      expect(rows.length).toBeGreaterThan(0);

      run.child.kill('SIGTERM');
      const { code } = await run.exited;
      expect({ code, stdout: run.stdout(), stderr: run.stderr() }).toMatchObject({ code: 0 });
      expect(run.stdout()).toContain('SIGTERM received, draining');
      expect(await tryConnect(port)).toBe('ECONNREFUSED');
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('drains and exits 0 on a SIGTERM that comes while it is still starting', async () => {
    const { port, run } = await serveOnFreshDatabase('info');
    try {
      // Logged once migrated, before the app and the workers start: the process is mid-start.
      await run.waitForStdout('migrations applied');
      run.child.kill('SIGTERM');
      const { code, signal } = await run.exited;
      // Before, Node's default handler ended it by the signal (code null), pools and an embedded
      // PostgreSQL left as they were.
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(run.stdout()).toContain('SIGTERM received, draining');
      expect(await tryConnect(port)).toBe('ECONNREFUSED');
    } finally {
      run.child.kill('SIGKILL');
    }
  });
});
