import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_RUNS, fencedBlocks, GUIDES, unmatchedOutputLines } from './guides.ts';
import { type Run, runExample, type Sandbox, startSandbox } from './support.ts';

/**
 * Every example and curl sample against a real `rampart serve` (workers on), each as its own
 * process with the variables examples/README.md documents, taken from the server's banner. Then
 * the guides' output blocks are compared with what the examples printed, and the endpoints the
 * guides name with the server's /openapi.json.
 */
let sandbox: Sandbox;
const runs = new Map<string, Run>();

beforeAll(async () => {
  sandbox = await startSandbox();
  // The start banner, which docs/getting-started.md shows.
  runs.set('rampart serve', { code: null, stdout: sandbox.process.stdout(), stderr: '' });
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
});

describe('examples against a real server', () => {
  it.each(Object.keys(EXAMPLE_RUNS))('%s exits 0 and prints what it should', async (file) => {
    const run = await runExample(file, { ...sandbox.env });
    runs.set(file, run);
    expect(run.code, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
    for (const pattern of EXAMPLE_RUNS[file]!) expect(run.stdout).toMatch(pattern);
  });

  it('gives a sandbox partner whose type matches its profile fields', async () => {
    const response = await fetch(
      `${sandbox.env.RAMPART_BASE_URL}/v3/accounts/${sandbox.env.RAMPART_ACCOUNT_ID}`,
      {
        headers: { authorization: `Bearer ${sandbox.env.RAMPART_SECRET_KEY}` },
      },
    );
    const account = (await response.json()) as { type: string; profileFields: { fieldId: string }[] };
    // Wyre's individual* fields are an INDIVIDUAL account's; they were listed on a BUSINESS one.
    expect(account.type).toBe('INDIVIDUAL');
    expect(account.profileFields.length).toBeGreaterThan(0);
    for (const { fieldId } of account.profileFields) expect(fieldId).toMatch(/^individual[A-Z]/);
  });

  it('refuses to run without its credentials and says which variable is missing', async () => {
    const run = await runExample('examples/first-request.ts', {
      RAMPART_BASE_URL: sandbox.env.RAMPART_BASE_URL,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('RAMPART_API_KEY is not set');
  });
});

describe('guides against what the server and the examples do', () => {
  it('shows only output the examples really printed', async () => {
    let checked = 0;
    for (const guide of GUIDES) {
      for (const block of fencedBlocks(guide, await readFile(guide, 'utf8'))) {
        if (block.marker?.kind !== 'output') continue;
        const run = runs.get(block.marker.file);
        expect(run, `${guide}:${block.line}: ${block.marker.file} is not run by this test`).toBeDefined();
        expect(unmatchedOutputLines(block.text, run!.stdout), `${guide}:${block.line}`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('names only endpoints the server has', async () => {
    const spec = (await (await fetch(`${sandbox.env.RAMPART_BASE_URL}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const known = new Set(
      Object.entries(spec.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/\{\w+\}/g, '{}')}`),
      ),
    );
    const named: string[] = [];
    for (const guide of GUIDES) {
      const text = await readFile(guide, 'utf8');
      for (const [, method, path] of text.matchAll(/`(GET|POST|PUT|DELETE) (\/[^`?\s]*)/g)) {
        named.push(`${method} ${path!.replace(/\{\w+\}/g, '{}').replace(/\/(WO|US|TF|AC)_…/g, '/{}')}`);
      }
    }
    expect(named.length).toBeGreaterThan(10);
    const unknown = named.filter((endpoint) => !known.has(endpoint));
    // Ops endpoints outside the OpenAPI description (/metrics): they must answer a plain GET.
    for (const endpoint of unknown.filter((e) => e.startsWith('GET ') && !e.includes('{}'))) {
      const response = await fetch(`${sandbox.env.RAMPART_BASE_URL}${endpoint.slice(4)}`);
      if (response.status === 200) unknown.splice(unknown.indexOf(endpoint), 1);
    }
    expect(unknown).toEqual([]);
  });
});
