// STAND-IN for the console-auth kit (/tmp/kit-spec.md); deleted when console-auth is merged.
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { OperatorAct } from '../operator/index.ts';
import { forbidden } from '../platform/errors.ts';
import { html, type SafeHtml } from '../web/index.ts';

export type OperatorRole = 'support' | 'reviewer' | 'admin';
export interface WebSession {
  id: string;
  kind: 'console' | 'dashboard';
  subject: string;
  label: string;
  role: OperatorRole | undefined;
  apiKey: string | undefined;
  csrfToken: string;
}
declare module 'fastify' {
  interface FastifyRequest {
    webSession?: WebSession;
  }
}
const RANK: Record<OperatorRole, number> = { support: 0, reviewer: 1, admin: 2 };

export function consoleGuard(_deps: unknown, role: OperatorRole): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['x-standin-role'];
    const given = typeof header === 'string' && header in RANK ? (header as OperatorRole) : undefined;
    if (!given) return reply.code(303).header('location', '/console/sign-in').send();
    if (RANK[given] < RANK[role]) throw forbidden('Not allowed.', 'accessDenied.forbidden');
    request.webSession = {
      id: '1',
      kind: 'console',
      subject: 'OP_STANDIN',
      label: 'standin@example.com',
      role: given,
      apiKey: undefined,
      csrfToken: 'x',
    };
  };
}

export function consolePage(_session: WebSession, title: string, main: SafeHtml, _current?: string): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>${main}</main></body></html>`
    .value;
}

export function consoleAct(request: FastifyRequest): OperatorAct & { actor: string } {
  return {
    action: `${request.method} ${request.routeOptions.url ?? ''}`,
    remoteIp: request.ip,
    actor: request.webSession?.subject ?? '',
  };
}

export function csrfField(session: WebSession): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;
}

export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
}
