import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Rampart } from '../../src/compose.ts';
import { startSession } from '../../src/web/sessions/index.ts';
import type { TestApp } from '../helpers/app.ts';

/**
 * Console sessions for page tests: a test-only route starts one as the sign-in pages do (the
 * sign-in flow itself is tested with the kit), for an operator of the asked role.
 */
export const OPERATOR_IDS = {
  support: 'OP_22222222222',
  reviewer: 'OP_33333333333',
  admin: 'OP_44444444444',
};

export async function sessionProbe(app: FastifyInstance, ctx: Rampart) {
  app.post<{ Querystring: { role: 'support' | 'reviewer' | 'admin'; kind?: string } }>(
    '/console/test-session',
    {
      schema: {
        hide: true,
        querystring: { type: 'object', properties: { role: { type: 'string' }, kind: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const role = request.query.role;
      if (request.query.kind === 'dashboard') {
        await startSession(ctx, reply, {
          kind: 'dashboard',
          subject: 'AC_22222222222',
          label: 'Partner',
          apiKey: 'AK-x',
        });
      } else {
        await startSession(ctx, reply, {
          kind: 'console',
          subject: OPERATOR_IDS[role],
          label: `${role}@example.com`,
          role,
        });
      }
      return reply.code(204).send();
    },
  );
}

export interface Browser {
  cookie: string;
  csrf: string;
}

export async function signIn(t: TestApp, role: 'support' | 'reviewer' | 'admin'): Promise<Browser> {
  const response = await fetch(`${t.baseUrl}/console/test-session?role=${role}`, { method: 'POST' });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const page = await fetch(`${t.baseUrl}/console/search`, { headers: { cookie } });
  expect(page.status).toBe(200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  expect(csrf).toBeDefined();
  return { cookie, csrf: csrf! };
}

/** A partner dashboard session's cookie, which must open nothing under /console. */
export async function dashboardCookie(t: TestApp): Promise<string> {
  const response = await fetch(`${t.baseUrl}/console/test-session?role=admin&kind=dashboard`, {
    method: 'POST',
  });
  return (response.headers.get('set-cookie') ?? '').split(';')[0]!;
}

export async function getPage(t: TestApp, who: Browser | undefined, path: string) {
  const response = await fetch(`${t.baseUrl}${path}`, {
    headers: who ? { cookie: who.cookie } : {},
    redirect: 'manual',
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export async function postForm(t: TestApp, who: Browser, path: string, fields: Record<string, string> = {}) {
  const response = await fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: who.cookie, origin: t.baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: who.csrf, ...fields }).toString(),
  });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

/** Every `href` of the page that starts with `prefix`, in order. */
export function linksOf(page: string, prefix: string): string[] {
  return [...page.matchAll(/href="([^"]+)"/g)]
    .map((m) => m[1]!.replaceAll('&amp;', '&'))
    .filter((h) => h.startsWith(prefix));
}
