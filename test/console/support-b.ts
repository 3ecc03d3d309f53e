import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Rampart } from '../../src/compose.ts';
import { startSession } from '../../src/web/sessions/index.ts';
import type { TestApp } from '../helpers/app.ts';

/**
 * Signs a browser into the console as the sign-in pages do (startSession), from a test-only
 * route: the console pages' tests need an operator of each role without the password and TOTP
 * steps, which test/console's own sign-in tests cover.
 */
export async function signInRoute(app: FastifyInstance, ctx: Rampart) {
  app.post<{ Querystring: { role?: string } }>(
    '/console/test-sign-in',
    {
      schema: {
        hide: true,
        querystring: { type: 'object', properties: { role: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const role = (request.query.role ?? 'admin') as 'admin';
      await startSession(ctx, reply, {
        kind: 'console',
        subject: 'OP_3333333333B',
        label: `${role}@example.com`,
        role,
      });
      return reply.code(204).send();
    },
  );
}

export interface ConsoleBrowser {
  cookie: string;
  get(path: string): Promise<{ status: number; text: string; location: string | null }>;
  post(
    path: string,
    fields: Record<string, string>,
  ): Promise<{ status: number; text: string; location: string | null }>;
}

/** A signed-in operator of `role` that reads pages and posts forms as a browser on this site does. */
export async function consoleAs(t: TestApp, role: 'admin' | 'support' | 'reviewer'): Promise<ConsoleBrowser> {
  const response = await fetch(`${t.baseUrl}/console/test-sign-in?role=${role}`, { method: 'POST' });
  expect(response.status).toBe(204);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  let csrf = '';
  const get = async (path: string) => {
    const page = await fetch(`${t.baseUrl}${path}`, { headers: { cookie }, redirect: 'manual' });
    const text = await page.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? csrf;
    return { status: page.status, text, location: page.headers.get('location') };
  };
  await get('/console');
  const post = async (path: string, fields: Record<string, string>) => {
    const page = await fetch(`${t.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie,
        origin: t.baseUrl,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
    return { status: page.status, text: await page.text(), location: page.headers.get('location') };
  };
  return { cookie, get, post };
}
