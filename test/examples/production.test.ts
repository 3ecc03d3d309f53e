import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { operatorHeaders, startTestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

/** The files docs/going-to-production.md shows, run for real. */
const run = promisify(execFile);
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** KEY=value lines of an env file (comments and blank lines skipped). */
function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}

describe('going to production', () => {
  it('secrets.sh makes a master key and operator token that a production config accepts', async () => {
    const first = parseEnvFile((await run('bash', ['examples/production/secrets.sh'])).stdout);
    const second = parseEnvFile((await run('bash', ['examples/production/secrets.sh'])).stdout);
    expect(Object.keys(first).sort()).toEqual(['RAMPART_MASTER_KEY', 'RAMPART_OPERATOR_TOKEN']);
    expect(second.RAMPART_MASTER_KEY).not.toBe(first.RAMPART_MASTER_KEY);
    const settings = parseEnvFile(await readFile('examples/production/rampart.env', 'utf8'));
    const config = loadConfig({ ...settings, ...first });
    expect(config).toMatchObject({
      env: 'production',
      host: '127.0.0.1',
      publicUrls: ['https://api.example.com'],
      workersEnabled: false,
      dbPoolSize: 20,
    });
    expect(config.masterKey?.length).toBe(32);
    expect(config.operatorToken).toBe(first.RAMPART_OPERATOR_TOKEN);
  });

  it('rampart.env sets only variables the README documents, and production refuses to start without secrets', async () => {
    const settings = parseEnvFile(await readFile('examples/production/rampart.env', 'utf8'));
    const readme = await readFile('README.md', 'utf8');
    for (const name of Object.keys(settings)) expect(readme, name).toContain(`| \`${name}\` |`);
    expect(() => loadConfig(settings)).toThrow('RAMPART_MASTER_KEY');
  });

  it('production starts with no prices: rates.stale until the operator sets the reference table', async () => {
    const t = await startTestApp({ env: { RAMPART_ENV: 'production' } });
    cleanups.push(() => t.close());
    const stale = await fetch(`${t.baseUrl}/v3/rates?as=MULTIPLIER`);
    expect(stale.status).toBe(503);
    expect(await stale.json()).toMatchObject({ errorCode: 'rates.stale', transient: true });
    const set = await fetch(`${t.baseUrl}/operator/v1/rates`, {
      method: 'PUT',
      headers: operatorHeaders(),
      body: JSON.stringify({ BTC: '61000.5', ETH: '3000' }),
    });
    expect(set.status).toBe(200);
    const rates = await fetch(`${t.baseUrl}/v3/rates?as=MULTIPLIER`);
    expect(rates.status).toBe(200);
    expect(await rates.text()).toContain('"USDETH":');
  });

  it('backup.sh dumps a migrated database and restores it into an empty one', async () => {
    const source: TestDatabase = await freshDatabase();
    const scratch: TestDatabase = await freshDatabase({ migrated: false });
    const dir = await mkdtemp(path.join(tmpdir(), 'rampart-backup-'));
    cleanups.push(
      () => source.drop(),
      () => scratch.drop(),
      () => rm(dir, { recursive: true, force: true }),
    );
    await source.db.query(
      "INSERT INTO runtime_settings (name, value) VALUES ('backup-test', '\"kept\"'::jsonb)",
    );
    const { stdout } = await run('bash', ['examples/production/backup.sh'], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: source.url,
        BACKUP_DIR: dir,
        RESTORE_CHECK_URL: scratch.url,
      },
    });
    const { rows: migrations } = await source.db.query('SELECT count(*)::int AS n FROM schema_migrations');
    expect(stdout).toContain(`restore check: ${migrations[0].n} migrations applied in the copy`);
    expect(stdout).toMatch(/^backup written: .*\/rampart-\d{8}T\d{6}Z\.dump$/m);
    const { rows } = await scratch.db.query("SELECT value FROM runtime_settings WHERE name = 'backup-test'");
    expect(rows).toEqual([{ value: 'kept' }]);
  });
});
