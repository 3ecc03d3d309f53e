import type { FastifyPluginAsync } from 'fastify';
import { registerFormParser } from '../web/sessions/index.ts';
import { dashboardSignInRoutes } from './auth-routes.ts';
import type { DashboardDeps } from './deps.ts';
import { dashboardGuard } from './guard.ts';
import { dashboardErrorPage } from './http.ts';
import { dashboardManageRoutes } from './manage-routes.ts';
import { dashboardRecordRoutes } from './record-routes.ts';

/**
 * The partner dashboard at /dashboard: server-rendered pages over the partner API's own services,
 * behind a session a key and its secret were exchanged for. Forms are parsed only inside this
 * plugin, so the partner API still refuses them; every signed-in route passes the guard.
 */
export const dashboardRoutes: FastifyPluginAsync<{ ctx: DashboardDeps }> = async (app, { ctx }) => {
  registerFormParser(app);
  app.setErrorHandler(dashboardErrorPage(ctx.exceptionIdPrefix));
  await app.register(dashboardSignInRoutes, { ctx });
  await app.register(async (signedIn) => {
    signedIn.addHook('preHandler', dashboardGuard(ctx));
    await signedIn.register(dashboardRecordRoutes, { ctx });
    await signedIn.register(dashboardManageRoutes, { ctx });
  });
};
