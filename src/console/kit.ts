import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../platform/errors.ts';
import { newExceptionId } from '../platform/ids.ts';
import { html } from '../web/index.ts';
import { registerFormParser } from '../web/sessions/index.ts';
import { consolePage, consolePublicPage, sendConsolePage } from './layout.ts';

/**
 * Prepares a plugin of console routes: forms are parsed (inside this plugin only) and errors
 * become pages for people, never the JSON envelope (docs/contract.md, decision 11). Call it
 * first in every console plugin.
 */
export function setupConsoleRoutes(app: FastifyInstance, deps: { exceptionIdPrefix: string }): void {
  registerFormParser(app);
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, message } = describe(error, deps.exceptionIdPrefix, request);
    const main = html`<h1>${titleOf(status)}</h1>
<div class="notice error" role="alert">${message}</div>
<p><a href="/console">Back to the console</a></p>`;
    const session = request.webSession;
    const page = session
      ? consolePage(session, titleOf(status), main)
      : consolePublicPage(titleOf(status), main);
    return sendConsolePage(reply, status, page);
  });
}

function describe(error: FastifyError, prefix: string, request: FastifyRequest) {
  if (error instanceof ApiError && error.status < 500)
    return { status: error.status, message: error.message };
  const clientError = typeof error.statusCode === 'number' && error.statusCode < 500;
  if (clientError && !(error instanceof ApiError)) {
    return { status: error.statusCode as number, message: 'This request could not be handled.' };
  }
  const reference = newExceptionId(prefix);
  request.log.error({ err: error, exceptionId: reference }, 'console page failed');
  return { status: 500, message: `Something went wrong on our side. Reference: ${reference}.` };
}

function titleOf(status: number): string {
  if (status === 403) return 'Not allowed';
  if (status === 404) return 'Not found';
  if (status === 429) return 'Too many attempts';
  if (status >= 500) return 'Something went wrong';
  return 'Check your request';
}
