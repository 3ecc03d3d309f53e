import type { FastifyPluginAsync } from 'fastify';
import type { Rampart } from '../compose.ts';
import { setupConsoleRoutes } from './kit.ts';
import { consoleOperationsRoutes } from './operations-routes.ts';
import { consolePartnerRoutes } from './partners-routes.ts';
import { consoleSettingsRoutes } from './settings-routes.ts';

/**
 * The console's partner, settings, ledger, audit, order, dispute and reconciliation pages, in one
 * encapsulated plugin: its form parser reaches no partner route, and its errors are pages.
 */
export const consoleAdminRoutes: FastifyPluginAsync<{ ctx: Rampart }> = async (app, { ctx }) => {
  setupConsoleRoutes(app, ctx);
  await app.register(consolePartnerRoutes, { ctx });
  await app.register(consoleSettingsRoutes, { ctx });
  await app.register(consoleOperationsRoutes, { ctx });
};
