import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../platform/errors.ts';
import { PAGE_SECURITY_HEADERS, type SafeHtml } from '../web/index.ts';
import type { WebSession } from '../web/sessions/index.ts';
import { consolePage, sendConsolePage } from './layout.ts';

/** Sends a signed-in console page; `current` is the nav entry's href. */
export function showPage(
  reply: FastifyReply,
  session: WebSession,
  title: string,
  main: SafeHtml,
  current: string,
  status = 200,
) {
  return sendConsolePage(reply, status, consolePage(session, title, main, current));
}

/** After a change: back to the page by GET, so a reload does not post again. */
export function redirectAfterChange(reply: FastifyReply, location: string) {
  return reply.code(303).headers(PAGE_SECURITY_HEADERS).header('location', location).send();
}

/** The session the guard put on the request (every console route has the guard). */
export function sessionOf(request: FastifyRequest): WebSession {
  const session = request.webSession;
  if (!session) throw new Error('console route without its guard');
  return session;
}

/**
 * Runs a change; a refusal the service names (bad input, unknown id) comes back as its message
 * and status for the page to show, having changed nothing. Anything else is a fault and throws.
 */
export async function attempt<T>(
  change: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; status: number; message: string }> {
  try {
    return { ok: true, value: await change() };
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) {
      return { ok: false, status: error.status, message: error.message };
    }
    throw error;
  }
}
