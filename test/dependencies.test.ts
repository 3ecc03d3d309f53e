import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import fastify from 'fastify';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
}

/**
 * `npm install` warns EBADENGINE for every installed package whose `engines.node` leaves out the
 * running Node. Rampart states in package.json which Node versions it runs on; every package the
 * lockfile installs (runtime, dev and other platforms' optional binaries alike) must accept each
 * of them, so no supported Node sees that warning or a package that needs a newer one.
 */
describe('dependencies', () => {
  it('every locked package supports every Node version Rampart declares', async () => {
    const own = JSON.parse(await readFile('package.json', 'utf8')) as { engines: { node: string } };
    const lock = JSON.parse(await readFile('package-lock.json', 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const supported = own.engines.node;
    const refusing: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (location === '' || !wanted) continue;
      if (!semver.subset(supported, wanted)) refusing.push(`${location}@${entry.version}: node ${wanted}`);
    }
    expect(refusing, `Rampart declares node ${supported}`).toEqual([]);
  });

  it('declares the Node version the tests run on', async () => {
    const own = JSON.parse(await readFile('package.json', 'utf8')) as { engines: { node: string } };
    expect(semver.satisfies(process.version, own.engines.node), process.version).toBe(true);
  });

  // package.json overrides them with their previous major versions (same functions, Node 18+):
  // each parent must still work with what it gets.
  it('light-my-request (fastify.inject) sends cookies with the overridden cookie package', async () => {
    const app = fastify();
    app.get('/', async (request) => ({ cookie: request.headers.cookie }));
    const response = await app.inject({ url: '/', cookies: { session: 'a b' } });
    expect(response.json()).toEqual({ cookie: 'session=a%20b' });
    await app.close();
  });

  it('@fastify/static names a download with the overridden content-disposition package', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'rampart-static-'));
    try {
      await writeFile(path.join(root, 'résumé.txt'), 'text');
      const app = fastify();
      await app.register(fastifyStatic, { root, serve: false });
      app.get('/file', (_request, reply) => reply.download('résumé.txt'));
      const response = await app.inject({ url: '/file' });
      expect(response.headers['content-disposition']).toBe(
        `attachment; filename="r?sum?.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt`,
      );
      expect(response.body).toBe('text');
      await app.close();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
