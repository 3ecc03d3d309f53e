import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { open, seal, sha256Hex } from '../crypto.ts';
import { type Db, type Tx, withTransaction } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import { serializerFor } from '../json.ts';
import { findLiveAnswer, type StoredAnswer, storeAnswer, tryLockKey } from './idempotency-store.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's answer carries a secret (an API key's secretKey, a webhookSecret): its stored
     * copy for Idempotency-Key replays is sealed under the master key, never kept in clear.
     */
    answerCarriesSecret?: boolean;
  }
}

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Who is calling, keeping keys apart: a string, or for partner calls the calling API key's
 * scope with `formerScope`, the same caller's account-wide scope of rows stored before migration
 * 031. Those rows are still replayed (a retry across the upgrade must not run its effect twice);
 * none is stored any more, and the last expires a day after the upgrade.
 */
export type CallerScope = string | { scope: string; formerScope: string };

interface Deps {
  db: Db;
  clock: Clock;
  config: { masterKey: Buffer };
}

/** Associated data binding a sealed answer to its scope and key: a box copied to another row won't open. */
const answerAad = (scope: string, key: string) => `idempotency:${scope}\n${key}`;

/** A replayed answer: the exact bytes stored with the original effect. */
export class ReplayedAnswer {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {}
}

function idempotencyKey(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (Array.isArray(header) || !KEY_PATTERN.test(header)) {
    throw new ApiError(
      'ValidationException',
      'validation.idempotencyKey',
      'Idempotency-Key must be one header of 1 to 255 printable characters.',
      { problematicField: 'Idempotency-Key' },
    );
  }
  return header;
}

const formatOf = (request: FastifyRequest) => (request.query as { format?: unknown } | undefined)?.format;

/**
 * Same key means same request only if path, query and body bytes are the same; the signature
 * `timestamp` is left out because every retry of a signed request carries a new one.
 */
function requestFingerprint(request: FastifyRequest): string {
  const [path = '', query = ''] = (request.raw.url ?? '').split('?', 2);
  const stableQuery = query
    .split('&')
    .filter((pair) => !pair.startsWith('timestamp='))
    .join('&');
  const head = `${request.method} ${path}?${stableQuery}\n`;
  return sha256Hex(Buffer.concat([Buffer.from(head), request.rawBody ?? Buffer.alloc(0)]));
}

function storedBody(deps: Deps, stored: StoredAnswer, key: string): string {
  if (stored.response_sealed === null) return stored.response_body!;
  return open(deps.config.masterKey, stored.response_sealed, answerAad(stored.scope, key)).toString('utf8');
}

function scopesOf(request: FastifyRequest, callerScope: CallerScope): string[] {
  const route = `${request.method} ${request.routeOptions.url ?? ''}`;
  if (typeof callerScope === 'string') return [`${callerScope} ${route}`];
  return [`${callerScope.scope} ${route}`, `${callerScope.formerScope} ${route}`];
}

/**
 * Runs a creating POST's effect in one transaction with its Idempotency-Key (docs/contract.md, Conventions):
 * the answer is stored in the same transaction as the effect, so a crash leaves either both or
 * neither. Same key + same request → the stored answer; other request → 422; the same key
 * still running elsewhere → 409 (a transaction-scoped advisory lock, tried without waiting).
 * Failed effects store nothing, so a corrected retry with the same key goes through.
 *
 * `callerScope` identifies who is calling (API key and masquerade target), keeping keys apart.
 * A route marked `answerCarriesSecret` has its answer stored sealed, and opened for a replay.
 */
export async function runIdempotent<T>(
  deps: Deps,
  request: FastifyRequest,
  callerScope: CallerScope,
  effect: (tx: Tx) => Promise<T>,
  status = 200,
): Promise<T | ReplayedAnswer> {
  const key = idempotencyKey(request);
  if (key === undefined) return withTransaction(deps.db, effect);
  const scopes = scopesOf(request, callerScope);
  const scope = scopes[0]!;
  const fingerprint = requestFingerprint(request);
  return withTransaction(deps.db, async (tx) => {
    if (!(await tryLockKey(tx, scope, key))) {
      throw new ApiError(
        'IdempotencyConflictException',
        'idempotency.inFlight',
        'A request with this Idempotency-Key is still being processed; retry later.',
        { status: 409, transient: true },
      );
    }
    const nowMs = deps.clock.nowMs();
    const stored = await findLiveAnswer(tx, scopes, key, nowMs);
    if (stored && stored.request_hash !== fingerprint) {
      throw new ApiError(
        'IdempotencyConflictException',
        'idempotency.keyReused',
        'This Idempotency-Key was used with a different request.',
        { status: 422, problematicField: 'Idempotency-Key' },
      );
    }
    if (stored) return new ReplayedAnswer(stored.response_status, storedBody(deps, stored, key));
    const result = await effect(tx);
    // Stored in the format this request asked for: `format` is part of the fingerprint, so only a
    // request with the same format can replay it.
    const body = serializerFor(formatOf(request))(result);
    const sealed = request.routeOptions.config.answerCarriesSecret
      ? seal(deps.config.masterKey, body, answerAad(scope, key))
      : null;
    await storeAnswer(tx, {
      scope,
      key,
      requestHash: fingerprint,
      status,
      body: sealed ? null : body,
      sealed,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + IDEMPOTENCY_TTL_MS,
    });
    return result;
  });
}

/**
 * Whether the request carries an Idempotency-Key (a malformed one is refused, as runIdempotent
 * would): a route whose effect needs no transaction of its own runs it on the pool without one,
 * sparing the BEGIN and COMMIT round trips.
 */
export function hasIdempotencyKey(request: FastifyRequest): boolean {
  return idempotencyKey(request) !== undefined;
}

/** Sends either the fresh result or the replayed bytes, marking replays as docs/contract.md (Conventions) says. */
export function sendIdempotent<T>(reply: FastifyReply, outcome: T | ReplayedAnswer, status = 200) {
  if (outcome instanceof ReplayedAnswer) {
    return reply
      .code(outcome.status)
      .header('idempotency-replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(outcome.body);
  }
  return reply.code(status).send(outcome);
}
