import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_OPERATOR_TOKEN, type TestApp } from '../helpers/app.ts';

// `rampart operators bootstrap`: the first admin from the command line, the password on stdin.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

function bootstrap(email: string, password: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', 'operators', 'bootstrap', '--email', email, '--name', 'Ada Lovelace'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        RAMPART_URL: t.baseUrl,
        RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(`${password}\n`);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('rampart operators bootstrap', () => {
  it('makes the first admin once, with the password from stdin; the second run fails', async () => {
    const first = await bootstrap('ada@example.com', 'correct horse battery staple');
    expect(first, first.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout)).toMatchObject({ email: 'ada@example.com', role: 'admin' });
    const { rows } = await t.database.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM operators',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.password_hash).not.toContain('correct horse');
    const second = await bootstrap('eve@example.com', 'another long password');
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('operator.alreadyBootstrapped');
  }, 120_000);
});
