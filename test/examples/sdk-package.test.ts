import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * @rampart/sdk is a private workspace package, not on a registry: sdk/README.md tells another
 * project to build it, pack it and install the tarball. This does exactly that, in copies outside
 * the checkout, and calls a real server from the other project.
 */
const run = promisify(execFile);
let t: TestApp;
const scratch: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

async function scratchDir(name: string) {
  const dir = await mkdtemp(path.join(tmpdir(), `rampart-${name}-`));
  scratch.push(dir);
  return dir;
}

describe('@rampart/sdk in another project', () => {
  it('installs from the packed tarball and calls the server with types included', async () => {
    // `npm run build:sdk` and `npm pack -w @rampart/sdk`, on a copy (the build's TypeScript and
    // @types/node come from the checkout's node_modules, as they do for the workspace).
    const build = await scratchDir('sdk-build');
    await symlink(path.resolve('node_modules'), path.join(build, 'node_modules'));
    const sdk = path.join(build, 'sdk');
    await cp('sdk', sdk, { recursive: true, filter: (source) => !/(^|\/)(dist|node_modules)$/.test(source) });
    await run('npm', ['run', 'build'], { cwd: sdk });
    const packed = JSON.parse(
      (await run('npm', ['pack', '--json', '--pack-destination', build], { cwd: sdk })).stdout,
    );
    const tarball = path.join(build, (packed as { filename: string }[])[0]!.filename);

    const project = await scratchDir('partner-project');
    await writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'partner-project', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });
    await writeFile(
      path.join(project, 'rates.js'),
      [
        "import { RampartClient } from '@rampart/sdk';",
        "const rates = await new RampartClient({ baseUrl: process.argv[2] }).rates.get({ as: 'MULTIPLIER' });",
        'console.log(typeof rates.USDETH, rates.USDETH);',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, ['rates.js', t.baseUrl], { cwd: project });
    expect(stdout).toMatch(/^string 0\.\d+\n$/);
    expect(existsSync(path.join(project, 'node_modules/@rampart/sdk/dist/index.d.ts'))).toBe(true);
  }, 120_000);
});
