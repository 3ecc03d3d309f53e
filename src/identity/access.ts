import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GroupedWriter } from '../platform/db/grouped-writer.ts';
import { ApiError } from '../platform/errors.ts';
import type { CallerScope } from '../platform/http/idempotency.ts';
import type { LimitCheck } from '../platform/http/rate-limit.ts';
import { type AccessAuditEntry, insertAccessAudits } from './accounts-store.ts';
import { Authenticator } from './authenticate.ts';
import { authErrors } from './errors.ts';
import { ipAllowed } from './ip-whitelist.ts';
import type { KeyUsage } from './key-usage.ts';
import { type IdentityDeps, parseMasqueradeAs, resolveMasquerade } from './masquerade.ts';
import type { Caller, CallerAccount, Scope } from './types.ts';
import { userTokenMayCall } from './user-token-routes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    scope?: Scope;
    /** A masqueraded read's audit row being written; its answer waits for it (awaitReadAudits). */
    auditWritten?: Promise<void>;
  }
  interface FastifyContextConfig {
    /**
     * 'none' opens a /v2 or /v3 route to anonymous callers; 'optional' serves anonymous callers
     * too but checks credentials whenever a request presents any (a bad signature is still 401),
     * so the handler tells the two apart by `request.scope`; every other route needs credentials.
     */
    auth?: 'none' | 'optional' | 'partner';
    /** Routes an untied decentralized session token may call (creating its account, deleting its key). */
    allowUntiedSession?: boolean;
    /**
     * The route shows the caller's own account balances: authentication reads them in its own
     * query, saving the route a round trip (see keys-store keyWithAccount).
     */
    withOwnBalances?: boolean;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD']);
const PARTNER_PATH = /^\/v[23]\//;

export function needsPartnerAuth(request: FastifyRequest): boolean {
  const route = request.routeOptions;
  if (route.config.auth === 'none' || !PARTNER_PATH.test(route.url ?? '')) return false;
  return route.config.auth !== 'optional' || presentsCredentials(request);
}

/**
 * Whether the request carries any credential header, well formed or not: on an 'optional' route
 * a request that tries to authenticate is held to it, and only one that tries nothing is anonymous.
 */
function presentsCredentials(request: FastifyRequest): boolean {
  const { headers } = request;
  return (
    headers['x-api-key'] !== undefined ||
    headers['x-api-signature'] !== undefined ||
    headers.authorization !== undefined
  );
}

/** The acting scope of an authenticated partner route; routes call this, never read request.scope raw. */
export function scopeOf(request: FastifyRequest): Scope {
  if (!request.scope) throw new Error(`route ${request.routeOptions.url} has no partner scope`);
  return request.scope;
}

/**
 * Idempotency keys belong to the calling API key and its acting target: another key of the same
 * account has keys of its own, so it never replays what this one stored (a new key's secret
 * among it), and once this key is deleted nobody can.
 */
export function idempotencyScope(scope: Scope): CallerScope {
  const target = `${scope.accountId}${scope.userId ? `>${scope.userId}` : ''}`;
  return { scope: `${scope.caller.apiKey}>${target}`, formerScope: `${scope.partnerId}>${target}` };
}

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error(`route ${request.routeOptions.url} has no caller`);
  return request.caller;
}

function masqueradeValue(request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.masqueradeAs;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > 64) {
    throw new ApiError(
      'ValidationException',
      'validation.invalidValue',
      'Send masqueradeAs once, as an account or user SRN.',
      {
        problematicField: 'masqueradeAs',
      },
    );
  }
  return value;
}

/**
 * A token tied to a user acts as its partner masquerading as that user, and as nothing else
 * (docs/contract.md, decision 95): only the routes of user-token-routes.ts, and a masqueradeAs
 * naming anyone but the user itself is refused. Checked before the route runs, so a refused
 * call changes nothing.
 */
function userTokenScope(
  request: FastifyRequest,
  caller: Caller,
  account: CallerAccount,
  userId: string,
): Scope {
  if (!userTokenMayCall(request)) throw authErrors.userToken();
  // Another user's path is refused here, as a route the token may not call, before the route runs.
  const pathUser = (request.params as Record<string, unknown> | undefined)?.userId;
  if (pathUser !== undefined && pathUser !== userId) throw authErrors.userToken();
  const masqueradeAs = masqueradeValue(request);
  if (masqueradeAs !== undefined) {
    const target = parseMasqueradeAs(masqueradeAs);
    if (target?.kind !== 'user' || target.id !== userId) throw authErrors.masqueradeDenied();
  }
  return { partnerId: account.partnerId, accountId: account.id, userId, caller, masqueraded: true };
}

/**
 * The partner access step, run for every /v2 and /v3 route before the body is parsed:
 * authenticate, enforce the key's IP whitelist and READONLY type, refuse untied sessions
 * outside account creation, rate-limit per key, then resolve masquerading into the Scope.
 * Each authenticated key's use is noted in `keyUsage` (its "last used", written later).
 */
export function partnerAccess(ctx: IdentityDeps, limitPerKey?: LimitCheck, keyUsage?: KeyUsage) {
  const authenticator = new Authenticator(ctx, keyUsage);
  // Concurrent masqueraded calls share one INSERT; each still waits for its own row.
  const audits = new GroupedWriter<AccessAuditEntry>((entries) =>
    insertAccessAudits(ctx.asyncCommitDb, entries),
  );
  const access = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = await authenticator.authenticate(request);
    request.caller = caller;
    if (!ipAllowed(caller.ipWhitelist, request.ip)) throw authErrors.ipNotAllowed();
    if (caller.keyType === 'READONLY' && !READ_METHODS.has(request.method)) throw authErrors.readOnlyKey();
    const limiting = limitPerKey?.(request, reply);
    if (limiting) await limiting;
    const account = caller.account;
    if (!account) {
      if (request.routeOptions.config.allowUntiedSession) return;
      throw authErrors.noAccount();
    }
    if (caller.userId !== undefined) {
      request.scope = userTokenScope(request, caller, account, caller.userId);
      return;
    }
    const masqueradeAs = masqueradeValue(request);
    if (masqueradeAs === undefined) {
      request.scope = { partnerId: account.partnerId, accountId: account.id, caller, masqueraded: false };
      return;
    }
    const audit = (outcome: 'allowed' | 'denied') =>
      audits.add({
        apiKey: caller.apiKey,
        accountId: account.id,
        target: masqueradeAs.slice(0, 64),
        method: request.method,
        route: request.routeOptions.url ?? '',
        outcome,
        at: new Date(),
      });
    const target = parseMasqueradeAs(masqueradeAs);
    try {
      if (!target) throw authErrors.masqueradeDenied();
      const resolved = await resolveMasquerade(ctx.userOwners, ctx.db, account, target);
      request.scope = { partnerId: account.partnerId, ...resolved, caller, masqueraded: true };
    } catch (error) {
      await audit('denied');
      throw error;
    }
    if (!READ_METHODS.has(request.method)) {
      await audit('allowed');
      return;
    }
    // A read changes nothing, so it runs while its row is written; the answer waits for the row.
    const written = audit('allowed');
    written.catch(() => undefined);
    request.auditWritten = written;
  };
  // Open routes (rates, widget, hosted pages) pass without a promise: most of their requests are short.
  return (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined =>
    needsPartnerAuth(request) ? access(request, reply) : undefined;
}

/**
 * A masqueraded read is answered only once its audit row is written (partnerAccess starts the
 * write and lets the read run meanwhile); when the write fails, the error is the answer and the
 * read's data never leaves. Writes wait for their row before they run, so no effect goes
 * unaudited. Callback style: it runs on every response.
 */
export function awaitReadAudits(app: FastifyInstance): void {
  app.addHook('onSend', (request, _reply, payload, done) => {
    const pending = request.auditWritten;
    if (pending === undefined) return done(null, payload);
    // Cleared first: the error answer passes through this hook again.
    request.auditWritten = undefined;
    pending.then(
      () => done(null, payload),
      (error: unknown) => done(error as Error),
    );
  });
}
