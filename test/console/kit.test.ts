import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rampart } from '../../src/compose.ts';
import { consoleAct, consoleGuard, consolePage, setupConsoleRoutes } from '../../src/console/index.ts';
import { html } from '../../src/web/index.ts';
import { csrfField, startSession } from '../../src/web/sessions/index.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The web-session kit as the console's pages use it: a test plugin signs a browser in (as the
 * sign-in pages do), shows a page behind consoleGuard and takes a form post. The posts count
 * what they changed, so a refused post is seen to change nothing.
 */
let t: TestApp;
const changes: string[] = [];

async function probes(app: FastifyInstance, ctx: Rampart) {
  await app.register(async (scope) => {
    setupConsoleRoutes(scope, ctx);
    scope.post<{ Querystring: { kind?: string; role?: string } }>(
      '/console/test-sign-in',
      {
        schema: {
          hide: true,
          querystring: { type: 'object', properties: { kind: { type: 'string' }, role: { type: 'string' } } },
        },
      },
      async (request, reply) => {
        const role = (request.query.role ?? 'admin') as 'admin';
        await startSession(ctx, reply, {
          kind: 'console',
          subject: 'OP_2222222222A',
          label: 'ada@example.com',
          role,
        });
        return reply.code(204).send();
      },
    );
    scope.get(
      '/console/test-page',
      { schema: { hide: true }, preHandler: consoleGuard(ctx, 'support') },
      async (request, reply) => {
        const session = request.webSession!;
        const main = html`<h1>Probe</h1><form method="post" action="/console/test-change">${csrfField(session)}<button>Go</button></form>`;
        return reply.type('text/html; charset=utf-8').send(consolePage(session, 'Probe', main));
      },
    );
    scope.post(
      '/console/test-change',
      { schema: { hide: true }, preHandler: consoleGuard(ctx, 'admin') },
      async (request, reply) => {
        changes.push(consoleAct(request).actor);
        return reply.redirect('/console/test-page', 303);
      },
    );
  });
}

beforeAll(async () => {
  t = await startTestApp({ extend: probes });
});
afterAll(async () => t.close());

async function signIn(role = 'admin'): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(`${t.baseUrl}/console/test-sign-in?role=${role}`, { method: 'POST' });
  const setCookie = response.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(/^rampart_console=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict$/);
  const cookie = setCookie.split(';')[0]!;
  const page = await fetch(`${t.baseUrl}/console/test-page`, { headers: { cookie } });
  expect(page.status).toBe(200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  return { cookie, csrf: csrf! };
}

function post(cookie: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${t.baseUrl}/console/test-change`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
}

describe('the console kit', () => {
  it('sends a browser without a session to the sign-in page, and refuses its posts', async () => {
    const page = await fetch(`${t.baseUrl}/console/test-page`, { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/console/sign-in');
    const before = changes.length;
    const refused = await post('rampart_console=nothing', '_csrf=x');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(changes.length).toBe(before);
  });

  it('takes a same-site form with the session token and names the operator as the actor', async () => {
    const { cookie, csrf } = await signIn();
    const done = await post(cookie, `_csrf=${encodeURIComponent(csrf)}`, {
      origin: t.baseUrl,
      'sec-fetch-site': 'same-origin',
    });
    expect(done.status).toBe(303);
    expect(changes.at(-1)).toBe('OP_2222222222A ada@example.com');
  });

  const forged: [string, string | undefined, Record<string, string>][] = [
    ['no _csrf', undefined, {}],
    ['a wrong _csrf', 'wrong', {}],
    ['Origin: https://evil.example', 'right', { origin: 'https://evil.example' }],
    ['Origin: null', 'right', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', 'right', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', 'right', { 'sec-fetch-site': 'same-site' }],
  ];
  for (const [name, token, headers] of forged) {
    it(`refuses a post with ${name} (403 page) and changes nothing`, async () => {
      const { cookie, csrf } = await signIn();
      const before = changes.length;
      const body =
        token === undefined ? 'x=1' : `_csrf=${encodeURIComponent(token === 'right' ? csrf : token)}`;
      const response = await post(cookie, body, headers);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('not sent from this site');
      expect(changes.length).toBe(before);
    });
  }

  it('refuses a role below the route’s (403) and changes nothing', async () => {
    const { cookie, csrf } = await signIn('support');
    const before = changes.length;
    const response = await post(cookie, `_csrf=${encodeURIComponent(csrf)}`);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('needs the admin role');
    expect(changes.length).toBe(before);
  });

  it('ends a session idle longer than RAMPART_WEB_SESSION_IDLE_MINUTES by the service clock', async () => {
    const { cookie } = await signIn();
    const advance = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: JSON.stringify({ advanceSeconds: 29 * 60 }),
    });
    expect(advance.status).toBe(200);
    expect(
      (await fetch(`${t.baseUrl}/console/test-page`, { headers: { cookie }, redirect: 'manual' })).status,
    ).toBe(200);
    await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: JSON.stringify({ advanceSeconds: 31 * 60 }),
    });
    const ended = await fetch(`${t.baseUrl}/console/test-page`, { headers: { cookie }, redirect: 'manual' });
    expect(ended.status).toBe(303);
    const { rows } = await t.database.db.query(
      'SELECT ended_at FROM web_sessions WHERE ended_at IS NOT NULL',
    );
    expect(rows.length).toBeGreaterThan(0);
  });

  it('never opens the console for a dashboard cookie', async () => {
    const { cookie } = await signIn();
    const asDashboard = cookie.replace('rampart_console=', 'rampart_dashboard=');
    const page = await fetch(`${t.baseUrl}/console/test-page`, {
      headers: { cookie: asDashboard },
      redirect: 'manual',
    });
    expect(page.status).toBe(303);
  });

  it('serves the stylesheet from the console itself', async () => {
    const css = await fetch(`${t.baseUrl}/console/assets/console.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('leaves the partner API refusing form bodies (415)', async () => {
    const response = await fetch(`${t.baseUrl}/v3/orders/reserve`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(response.status).toBe(415);
  });
});
