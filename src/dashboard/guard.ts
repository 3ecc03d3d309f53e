import type { FastifyReply, FastifyRequest } from 'fastify';
import { liveWebCaller, type Scope, type WebCaller } from '../identity/index.ts';
import { checkFormPost, endSession, loadSession, type WebSession } from '../web/sessions/index.ts';
import type { DashboardDeps } from './deps.ts';
import { dashboardErrors } from './errors.ts';

/** Who a signed-in dashboard request acts as: the session, its key as it stands now, and the API's scope of it. */
export interface DashboardAccess {
  session: WebSession;
  caller: WebCaller;
  scope: Scope;
  sandbox: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboard?: DashboardAccess;
  }
}

export const SIGN_IN_PATH = '/dashboard/sign-in';
const SIGN_OUT_PATH = '/dashboard/sign-out';

/**
 * Every signed-in page's gate. The session is the kit's (cookie Path=/dashboard); the key that
 * signed in is read again on every request, so a revoked key, a key whose whitelist no longer
 * holds the address, or a key that moved account ends the session at once. The scope is the
 * API's for that key, unmasqueraded (docs/contract.md, decision 161). A GET without a session
 * goes to the sign-in page; a POST without one, or not this session's own form from this site,
 * is refused and changes nothing; a READONLY key posts nothing but its sign-out.
 */
export function dashboardGuard(ctx: DashboardDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const session = await loadSession(ctx, request, 'dashboard');
    const caller = session?.apiKey ? await liveWebCaller(ctx, session.apiKey, request.ip) : undefined;
    if (!session || !caller || caller.account.id !== session.subject) {
      if (session) await endSession(ctx, request, reply, 'dashboard');
      if (request.method === 'GET') return reply.redirect(SIGN_IN_PATH, 303);
      throw dashboardErrors.notSignedIn();
    }
    if (request.method === 'POST') {
      checkFormPost(request, session);
      if (caller.keyType === 'READONLY' && request.routeOptions.url !== SIGN_OUT_PATH)
        throw dashboardErrors.readOnlyKey();
    }
    const account = caller.account;
    request.dashboard = {
      session,
      caller,
      scope: { partnerId: account.partnerId, accountId: account.id, caller, masqueraded: false },
      sandbox: ctx.config.env === 'sandbox',
    };
  };
}

export function accessOf(request: FastifyRequest): DashboardAccess {
  if (!request.dashboard) throw new Error(`route ${request.routeOptions.url} has no dashboard access`);
  return request.dashboard;
}
