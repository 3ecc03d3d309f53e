import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import FindMyWay from 'find-my-way';
import { ApiError, notFound } from '../errors.ts';
import { urlTextRefusal } from './unstorable-text.ts';
import { isWyreApiRoute } from './wyre-types.ts';

export const MAX_URL_BYTES = 8192;

/** Query parameters every route accepts: the signature timestamp, Wyre's `format`, masquerading. */
export const COMMON_QUERY_PROPERTIES = {
  timestamp: { type: 'string', pattern: '^\\d{1,20}$', maxLength: 20 },
  format: { type: 'string', enum: ['json', 'json_numberstring'] },
  masqueradeAs: { type: 'string', minLength: 1, maxLength: 64 },
};

interface ObjectSchema {
  type?: string;
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  [key: string]: unknown;
}

/**
 * Every route gets a querystring schema that names the common parameters and refuses any
 * other, so a misspelt parameter is an error rather than silently ignored.
 */
function withCommonQuery(schema: ObjectSchema | undefined): ObjectSchema {
  const base = schema ?? { type: 'object' };
  return {
    ...base,
    properties: { ...COMMON_QUERY_PROPERTIES, ...(base.properties ?? {}) },
    additionalProperties: false,
  };
}

const BODYLESS_METHODS = new Set(['GET', 'HEAD']);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return (length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined;
}

/** Longest body a GET may carry when it is only an empty object: `{}` with some whitespace. */
const EMPTY_OBJECT_MAX_BYTES = 32;
const EMPTY_OBJECT = /^\s*\{\s*\}\s*$/;

/** A GET whose declared body is short enough to be the `{}` some Wyre clients send with every call. */
function mayBeEmptyObject(headers: Record<string, string | string[] | undefined>): boolean {
  const length = Number(headers['content-length']);
  return headers['transfer-encoding'] === undefined && length > 0 && length <= EMPTY_OBJECT_MAX_BYTES;
}

/** Reads the few bytes of a GET body (Fastify reads none for GET): kept for the signature check. */
function readSmallBody(request: FastifyRequest): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.raw.once('end', () => resolve(Buffer.concat(chunks)));
    request.raw.once('error', reject);
  });
}

function bodyNotAllowed(method: string): ApiError {
  return new ApiError('ValidationException', 'validation.bodyNotAllowed', `${method} requests take no body.`);
}

export type ErrorResponder = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => FastifyReply;

export function installRequestGuards(app: FastifyInstance, respond: ErrorResponder) {
  // A second router holding every (method, path): it tells "wrong method" (405) from "no such path" (404).
  const routeIndex = FindMyWay({ ignoreTrailingSlash: false });
  const knownMethods = new Set<string>();

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      knownMethods.add(method);
      routeIndex.on(method as 'GET', route.url, () => undefined);
    }
    if (route.config?.skipQueryGuard) return;
    const schema = (route.schema ?? {}) as { querystring?: ObjectSchema };
    route.schema = { ...route.schema, querystring: withCommonQuery(schema.querystring) };
  });

  // Requests that arrive on a kept-alive connection while the server drains get the envelope
  // (Fastify's own 503 shape is switched off in app.ts) and the connection is closed after it.
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  // A request still running when the drain began would otherwise leave its connection kept
  // alive, and server.close() would wait for the client to hang up (up to the keep-alive timeout).
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });

  // Callback style, not async: this runs on every request and a promise per hook adds up.
  app.addHook('onRequest', (request, _reply, done) => {
    if (draining) {
      return done(
        new ApiError(
          'ServiceUnavailableException',
          'service.shuttingDown',
          'The server is shutting down; retry.',
          {
            headers: { connection: 'close' },
          },
        ),
      );
    }
    const url = request.raw.url ?? '';
    if (Buffer.byteLength(url) > MAX_URL_BYTES) {
      return done(
        new ApiError(
          'UriTooLongException',
          'validation.urlTooLong',
          `The URL is longer than ${MAX_URL_BYTES} bytes.`,
        ),
      );
    }
    // Only percent-encoding can carry U+0000 or a bad byte into a parameter: most URLs hold none.
    if (url.includes('%')) {
      const refusal = urlTextRefusal(url, request.params);
      if (refusal) return done(refusal);
    }
    if (BODYLESS_METHODS.has(request.method) && hasBody(request.headers)) {
      // Wyre's own Postman collection sends `{}` (and signs it) with some GETs: that much is
      // read and kept for the signature; any other body is refused (docs/contract.md, decision 61).
      // A path no route takes yet is judged by its prefix, so it answers its 404 rather than a 400.
      const wyreApi = isWyreApiRoute(request.routeOptions.url ?? request.url);
      if (!wyreApi || !mayBeEmptyObject(request.headers)) return done(bodyNotAllowed(request.method));
      readSmallBody(request).then((bytes) => {
        if (!EMPTY_OBJECT.test(bytes.toString('latin1'))) return done(bodyNotAllowed(request.method));
        request.rawBody = bytes;
        done();
      }, done);
      return;
    }
    done();
  });

  // Answered directly rather than thrown: an unknown route is the commonest error and the
  // error-handler round trip roughly doubled its cost.
  app.setNotFoundHandler((request, reply) => {
    const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
    const shownPath = path.length > 200 ? `${path.slice(0, 200)}…` : path;
    const allowed = [...knownMethods].filter((method) => routeIndex.find(method as 'GET', path) !== null);
    if (allowed.length > 0) {
      return respond(
        request,
        reply,
        new ApiError(
          'MethodNotAllowedException',
          'validation.methodNotAllowed',
          `${request.method} is not allowed on ${shownPath}; use ${allowed.join(' or ')}.`,
          { headers: { allow: allowed.join(', ') } },
        ),
      );
    }
    return respond(request, reply, notFound(`Route ${request.method} ${shownPath}`));
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Routes outside the partner API (docs assets) keep their own query handling. */
    skipQueryGuard?: boolean;
  }
}
