import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Rampart } from '../compose.ts';
import { ApiError } from '../platform/errors.ts';
import { newExceptionId } from '../platform/ids.ts';
import { html, PAGE_SECURITY_HEADERS, page } from '../web/index.ts';
import { consolePage, registerFormParser } from './kit-standin.ts';
import { consoleOperationsRoutes } from './operations-routes.ts';
import { consolePartnerRoutes } from './partners-routes.ts';
import { consoleSettingsRoutes } from './settings-routes.ts';

/**
 * The console's partner, settings, ledger, audit, order, dispute and reconciliation pages, in one
 * encapsulated plugin: its form parser reaches no partner route.
 */
export const consoleAdminRoutes: FastifyPluginAsync<{ ctx: Rampart }> = async (app, { ctx }) => {
  registerFormParser(app);
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = error instanceof ApiError && error.status < 500;
    const status = known ? error.status : 500;
    const reference = newExceptionId(ctx.exceptionIdPrefix);
    if (!known) request.log.error({ err: error, exceptionId: reference }, 'console page failed');
    const message = known ? error.message : `Something went wrong on our side. Reference: ${reference}.`;
    const main = html`<h1>${status === 404 ? 'Not found' : 'This page could not be shown'}</h1>
<div class="notice notice-error" role="alert"><p>${message}</p></div>`;
    const session = request.webSession;
    const body = session ? consolePage(session, 'Console', main) : page('Console', main);
    return reply.code(status).headers(PAGE_SECURITY_HEADERS).type('text/html; charset=utf-8').send(body);
  });
  await app.register(consolePartnerRoutes, { ctx });
  await app.register(consoleSettingsRoutes, { ctx });
  await app.register(consoleOperationsRoutes, { ctx });
};
