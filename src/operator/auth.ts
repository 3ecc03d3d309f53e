import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { secretsEqual, sha256Hex } from '../platform/crypto.ts';
import { forbidden, unauthenticated } from '../platform/errors.ts';
import type { OperatorRole } from '../web/sessions/index.ts';
import { OPERATOR_TOKEN_ACTOR, type OperatorAct, operatorActorName } from './audit.ts';
import { findTokenOperator } from './operators-store.ts';
import { PERSONAL_TOKEN_PATTERN, requiredRole, roleAllows } from './roles.ts';
import { insertAudit } from './store.ts';

/** Who is calling the operator API: the shared token, or a named operator's personal token. */
export interface OperatorCaller {
  actor: string;
  operatorId: string | undefined;
  role: OperatorRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the handler already wrote its audit row inside its own transaction. */
    operatorAudited?: boolean;
    /** Set by the operator auth hook once the bearer token is known. */
    operatorCaller?: OperatorCaller;
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

/** The OperatorAct of an operator API call: what its audited change records as the actor. */
export function operatorAct(request: FastifyRequest): OperatorAct {
  const caller = request.operatorCaller;
  return {
    action: operatorAction(request),
    remoteIp: request.ip,
    actor: caller?.actor ?? OPERATOR_TOKEN_ACTOR,
    operatorId: caller?.operatorId,
  };
}

const SHARED_TOKEN_CALLER: OperatorCaller = {
  actor: OPERATOR_TOKEN_ACTOR,
  operatorId: undefined,
  role: 'admin',
};

/**
 * Operator calls carry `Authorization: Bearer <token>`: RAMPART_OPERATOR_TOKEN (compared in
 * constant time; acts as an admin) or a named operator's personal token `rop_…` (looked up by
 * its SHA-256; acts with that operator's role, route by route: docs/contract.md, decision 139).
 * The hooks are attached to every route under /operator/, whichever module declares it, and to
 * no other route (partner traffic pays nothing for them). Every call is audited: state changes
 * write their row in their own transaction, and the onResponse hook writes one for everything
 * else (reads, refusals, bad input).
 */
export function installOperatorAuth(app: FastifyInstance, ctx: AppContext) {
  const identify = async (request: FastifyRequest): Promise<OperatorCaller> => {
    const token = bearerToken(request);
    if (token !== undefined && secretsEqual(token, ctx.config.operatorToken)) return SHARED_TOKEN_CALLER;
    if (token !== undefined && PERSONAL_TOKEN_PATTERN.test(token)) {
      const operator = await findTokenOperator(ctx.db, sha256Hex(token));
      if (operator) {
        return {
          actor: operatorActorName(operator.id, operator.email),
          operatorId: operator.id,
          role: operator.role,
        };
      }
    }
    throw unauthenticated('accessDenied.invalidOperatorToken', 'Missing or invalid operator token.');
  };
  const checkToken = async (request: FastifyRequest) => {
    const caller = await identify(request);
    request.operatorCaller = caller;
    const needed = requiredRole(request.method, request.routeOptions.url ?? '');
    if (!roleAllows(caller.role, needed)) {
      throw forbidden(
        `This call needs the ${needed} role; the token's operator is ${caller.role}.`,
        'accessDenied.role',
      );
    }
  };
  const audit = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.operatorAudited) return;
    const status = reply.statusCode;
    const caller = request.operatorCaller;
    await insertAudit(ctx.db, {
      actor: caller?.actor ?? 'anonymous',
      operatorId: caller?.operatorId,
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
    identify(request).then(() => done(), done);
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
