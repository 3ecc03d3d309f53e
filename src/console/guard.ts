import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { type OperatorAct, operatorAction, operatorActorName, roleAllows } from '../operator/index.ts';
import { forbidden } from '../platform/errors.ts';
import { checkFormPost, loadSession, type OperatorRole, type SessionDeps } from '../web/sessions/index.ts';

export const SIGN_IN_PATH = '/console/sign-in';

/**
 * The gate of every console route. Without a console session a GET goes to the sign-in page
 * (303) and anything else is refused (403); a role below `role` is refused (403); a POST must
 * also be this session's own form from this site (checkFormPost). On success the session is
 * `request.webSession`. A dashboard session is another cookie on another path: it never opens
 * the console.
 */
export function consoleGuard(deps: SessionDeps, role: OperatorRole): preHandlerAsyncHookHandler {
  return async function guard(request: FastifyRequest, reply: FastifyReply) {
    const session = await loadSession(deps, request, 'console');
    if (!session) {
      if (request.method === 'GET' || request.method === 'HEAD') {
        await reply.redirect(SIGN_IN_PATH, 303);
        return reply;
      }
      throw forbidden('Your console session has ended. Sign in again.', 'accessDenied.noSession');
    }
    request.webSession = session;
    if (request.method !== 'GET' && request.method !== 'HEAD') checkFormPost(request, session);
    if (!roleAllows(session.role, role)) {
      throw forbidden(
        `This needs the ${role} role; you are signed in as ${session.role ?? 'nobody'}.`,
        'accessDenied.role',
      );
    }
    return undefined;
  };
}

/**
 * The OperatorAct of a console action: the same services the operator API calls are given
 * this, so the audit row names the operator (decision 138).
 */
export function consoleAct(request: FastifyRequest): OperatorAct {
  const session = request.webSession;
  if (session?.kind !== 'console') throw forbidden('Sign in to the console first.', 'accessDenied.noSession');
  return {
    action: operatorAction(request),
    remoteIp: request.ip,
    actor: operatorActorName(session.subject, session.label),
    operatorId: session.subject,
  };
}
