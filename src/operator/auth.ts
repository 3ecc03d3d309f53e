import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { secretsEqual } from '../platform/crypto.ts';
import { unauthenticated } from '../platform/errors.ts';
import { insertAudit } from './store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the handler already wrote its audit row inside its own transaction. */
    operatorAudited?: boolean;
  }
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  // The scheme name is case-insensitive (RFC 9110 §11.1); the token is not.
  const match = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header);
  return match?.[1];
}

export function operatorAction(request: FastifyRequest): string {
  return `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`;
}

/**
 * Operator calls carry `Authorization: Bearer <RAMPART_OPERATOR_TOKEN>`, compared in constant
 * time. The hooks are attached to every route under /operator/, whichever module declares it,
 * and to no other route (partner traffic pays nothing for them). Every call is audited: state
 * changes write their row in their own transaction, and the onResponse hook writes one for
 * everything else (reads, refusals, bad input).
 */
export function installOperatorAuth(app: FastifyInstance, ctx: AppContext) {
  const checkToken = async (request: FastifyRequest) => {
    const token = bearerToken(request);
    if (token === undefined || !secretsEqual(token, ctx.config.operatorToken)) {
      throw unauthenticated('accessDenied.invalidOperatorToken', 'Missing or invalid operator token.');
    }
  };
  const audit = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.operatorAudited) return;
    const status = reply.statusCode;
    await insertAudit(ctx.db, {
      actor: status === 401 ? 'anonymous' : 'operator',
      action: operatorAction(request),
      outcome: status === 401 || status === 403 ? 'denied' : status >= 400 ? 'rejected' : 'ok',
      status,
      remoteIp: request.ip,
    }).catch((error) => request.log.error({ err: error }, 'operator audit write failed'));
  };
  // An unknown path under /operator/ asks for the token too, so that without it nobody can tell
  // which operator routes exist (404/405 would say). Only unmatched requests take this branch.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.is404 || !request.url.startsWith('/operator/')) return done();
    checkToken(request).then(() => done(), done);
  });
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/operator/')) return;
    route.onRequest = [checkToken, ...hookList(route.onRequest)];
    route.onResponse = [...hookList(route.onResponse), audit];
  });
}

function hookList<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}
