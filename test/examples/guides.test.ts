import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EXAMPLE_RUNS,
  fencedBlocks,
  GUIDES,
  PRODUCTION_SAMPLES,
  SHARED_EXAMPLE_MODULES,
  sampleText,
  unsetShellVariables,
} from './guides.ts';

/**
 * The guides' code samples are files that tests run: each fenced block must say where it comes
 * from and equal that text. examples.test.ts runs the examples (and checks output blocks),
 * production.test.ts the production files, .ci/run and .ci/smoke-embedded.sh the CI commands.
 */
const executed = new Set([...Object.keys(EXAMPLE_RUNS), ...SHARED_EXAMPLE_MODULES, ...PRODUCTION_SAMPLES]);

async function guideTexts() {
  return Promise.all(GUIDES.map(async (guide) => ({ guide, text: await readFile(guide, 'utf8') })));
}

describe('guide samples', () => {
  it('every fenced block has a marker, and a sample equals the executed file it names', async () => {
    let samples = 0;
    for (const { guide, text } of await guideTexts()) {
      for (const block of fencedBlocks(guide, text)) {
        const where = `${guide}:${block.line}`;
        expect(block.marker, `${where}: code block without a sample/output/ci marker`).toBeDefined();
        if (block.marker?.kind === 'sample') {
          expect(executed.has(block.marker.file), `${where}: ${block.marker.file} is run by no test`).toBe(
            true,
          );
          expect(block.text, where).toBe(await sampleText(block.marker));
          samples++;
        }
        if (block.marker?.kind === 'ci') {
          const scripts = await Promise.all(block.marker.files.map((file) => readFile(file, 'utf8')));
          for (const command of block.text.split('\n').map((line) => line.replace(/#.*/, '').trim())) {
            if (command) expect(scripts.join('\n'), `${where}: ${command}`).toContain(command);
          }
        }
      }
    }
    expect(samples).toBeGreaterThan(15);
  });

  it('links only to files that exist', async () => {
    for (const { guide, text } of await guideTexts()) {
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^https?:/.test(target!)) continue;
        await expect(
          access(path.join(path.dirname(guide), target!)),
          `${guide}: ${target}`,
        ).resolves.toBeUndefined();
      }
    }
  });

  it('names only environment variables the README or examples/README.md documents', async () => {
    const documented = (await readFile('README.md', 'utf8')) + (await readFile('examples/README.md', 'utf8'));
    for (const { guide, text } of await guideTexts()) {
      for (const [name] of text.matchAll(/\b(RAMPART_[A-Z0-9_]+|DATABASE_URL|REDIS_URL|LOG_LEVEL)\b/g)) {
        expect(documented, `${guide}: ${name}`).toContain(`\`${name}\``);
      }
    }
  });

  it('shell samples read only variables an earlier sample sets or the reader is told to set', async () => {
    const examplesReadme = await readFile('examples/README.md', 'utf8');
    const isDocumented = (name: string) => examplesReadme.includes(`| \`${name}\``);
    for (const { guide, text } of await guideTexts()) {
      const samples = fencedBlocks(guide, text)
        .filter((block) => block.marker?.kind === 'sample' && /\.(sh|env)$/.test(block.marker.file))
        .map((block) => block.text);
      expect(unsetShellVariables(samples, isDocumented), guide).toEqual([]);
    }
  });

  it("README's curl commands take the server's address from a variable, not a fixed port", async () => {
    const readme = await readFile('README.md', 'utf8');
    const fixed = readme
      .split('\n')
      .filter(
        (line) => /\bcurl |^\s*URL=/.test(line) && /https?:\/\/(localhost|127\.0\.0\.1):\d+/.test(line),
      );
    expect(fixed).toEqual([]);
  });

  it('is linked from the README', async () => {
    const readme = await readFile('README.md', 'utf8');
    for (const guide of GUIDES) expect(readme).toContain(`(${guide})`);
  });
});
