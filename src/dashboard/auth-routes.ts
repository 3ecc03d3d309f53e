import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../platform/errors.ts';
import { startSession } from '../web/sessions/index.ts';
import { DASHBOARD_CSS } from './assets.ts';
import type { DashboardDeps } from './deps.ts';
import { dashboardErrors } from './errors.ts';
import { SIGN_IN_PATH } from './guard.ts';
import { formField, sendPage } from './http.ts';
import { signInPage } from './pages/sign-in.ts';
import { signIn } from './sign-in.ts';

const hide = { hide: true };

/** The routes open without a session: the stylesheet, the sign-in form and its post (sign-out is a signed-in form). */
export const dashboardSignInRoutes: FastifyPluginAsync<{ ctx: DashboardDeps }> = async (app, { ctx }) => {
  app.get('/dashboard/assets/dashboard.css', { schema: hide }, async (_request, reply) =>
    reply
      .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=3600' })
      .type('text/css; charset=utf-8')
      .send(DASHBOARD_CSS),
  );

  app.get('/dashboard', { schema: hide }, async (_request, reply) =>
    reply.redirect('/dashboard/orders', 303),
  );

  app.get(SIGN_IN_PATH, { schema: hide }, async (_request, reply) => sendPage(reply, 200, signInPage()));

  app.post(SIGN_IN_PATH, { schema: hide }, async (request, reply) => {
    const apiKey = formField(request.body, 'apiKey', 200);
    try {
      // No session yet, so no token: the browser's own word keeps another site from signing a
      // visitor in to an account of its choosing.
      const site = request.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin' && site !== 'none') throw dashboardErrors.crossSite();
      const caller = await signIn(ctx, {
        apiKey,
        secret: formField(request.body, 'secretKey', 600),
        address: request.ip,
      });
      await startSession(ctx, reply, {
        kind: 'dashboard',
        subject: caller.account.id,
        label: caller.account.row?.name || caller.account.id,
        apiKey: caller.apiKey,
      });
      return reply.redirect('/dashboard/orders', 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      reply.headers(error.headers);
      // The typed key comes back so it need not be typed again; the secret never does.
      return sendPage(reply, error.status, signInPage({ error: error.message, apiKey: apiKey.slice(0, 64) }));
    }
  });
};
