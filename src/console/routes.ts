import type { FastifyPluginAsync } from 'fastify';
import { roleAllows } from '../operator/index.ts';
import { notFound } from '../platform/errors.ts';
import { html } from '../web/index.ts';
import { endSession, loadSession } from '../web/sessions/index.ts';
import { CONSOLE_ASSETS } from './assets.ts';
import type { ConsoleDeps } from './deps.ts';
import { consoleGuard, SIGN_IN_PATH } from './guard.ts';
import { setupConsoleRoutes } from './kit.ts';
import { consolePage, sendConsolePage } from './layout.ts';
import { CONSOLE_NAV } from './nav.ts';

const AssetParams = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 64 } },
  required: ['name'],
} as const;

/** The console's frame: its assets, the home page and signing out. */
export const consoleRoutes: FastifyPluginAsync<{ ctx: ConsoleDeps }> = async (app, { ctx }) => {
  setupConsoleRoutes(app, ctx);

  app.get<{ Params: { name: string } }>(
    '/console/assets/:name',
    { schema: { hide: true, params: AssetParams } },
    async (request, reply) => {
      const asset = Object.hasOwn(CONSOLE_ASSETS, request.params.name)
        ? CONSOLE_ASSETS[request.params.name]
        : undefined;
      if (!asset) throw notFound('Asset');
      return reply
        .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache', etag: asset.etag })
        .type(asset.type)
        .send(asset.body);
    },
  );

  app.get(
    '/console',
    { schema: { hide: true }, preHandler: consoleGuard(ctx, 'support') },
    async (request, reply) => {
      const session = request.webSession!;
      const sections = CONSOLE_NAV.filter(
        (entry) => entry.href !== '/console' && roleAllows(session.role, entry.role),
      );
      const main = html`<h1>Console</h1>
<p>Signed in as <strong>${session.label}</strong> with the <strong>${session.role ?? ''}</strong> role.</p>
<h2>Sections</h2>
<ul class="cards">${sections.map((entry) => html`<li><a href="${entry.href}"><strong>${entry.label}</strong><span class="muted">${entry.href}</span></a></li>`)}</ul>`;
      return sendConsolePage(reply, 200, consolePage(session, 'Console', main, '/console'));
    },
  );

  // Signing out needs no CSRF token: ending one's own session is harmless, and a stale page's
  // button must still work. The session, if any, ends; the sign-in page follows.
  app.post('/console/sign-out', { schema: { hide: true } }, async (request, reply) => {
    const session = await loadSession(ctx, request, 'console');
    if (session) request.webSession = session;
    await endSession(ctx, request, reply, 'console');
    return reply.redirect(`${SIGN_IN_PATH}?signedOut=1`, 303);
  });
};
