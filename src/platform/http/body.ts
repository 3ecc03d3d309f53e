import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { parseJsonExact } from '../json-parse.ts';
import { lingerUntilBodyRead } from './lingering-close.ts';
import { unstorableTextPath } from './unstorable-text.ts';
import { isWyreApiRoute } from './wyre-types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received: signatures are computed over these bytes. */
    rawBody?: Buffer;
    /** JSON waiting to be parsed: parsing happens after authentication (see installBodyParsers). */
    jsonPending?: boolean;
  }
  interface FastifyContextConfig {
    /** Content types a route accepts as raw bytes (document uploads); JSON is always parsed. */
    rawBodyTypes?: string[];
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = strictUtf8.decode(raw);
  } catch {
    throw new ApiError(
      'JsonFormatException',
      'validation.invalidUtf8',
      'The request body is not valid UTF-8.',
    );
  }
  let body: unknown;
  try {
    // Rejects __proto__ and constructor.prototype keys (hostile JSON must not poison objects) and
    // keeps long number literals exact.
    body = parseJsonExact(text);
  } catch {
    throw new ApiError('JsonFormatException', 'validation.jsonFormat', 'The request body is not valid JSON.');
  }
  const unstorable = unstorableTextPath(text, body);
  if (unstorable !== undefined) {
    throw new ApiError(
      'ValidationException',
      'validation.invalidCharacter',
      `Field ${unstorable.slice(0, 100)} holds U+0000 or an unpaired surrogate, which no field accepts.`,
      { problematicField: unstorable.slice(0, 100) },
    );
  }
  return body;
}

function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0]?.trim().toLowerCase() ?? '';
}

function acceptsRaw(request: FastifyRequest, contentType: string): boolean {
  const allowed = request.routeOptions.config.rawBodyTypes;
  return allowed?.includes(mediaTypeOf(contentType)) === true;
}

/**
 * Media types real Wyre clients send JSON under: none at all, Postman's `application/javascript`
 * and `text/javascript`, and `text/plain` (what fetch sends for a string body). Wyre read them as
 * JSON, so Rampart does too on the Wyre API's JSON routes (docs/contract.md, decision 61).
 */
const JSON_ALIASES = new Set([
  '',
  'application/javascript',
  'text/javascript',
  'application/x-javascript',
  'text/plain',
]);

function readsAsJson(request: FastifyRequest, contentType: string): boolean {
  if (!isWyreApiRoute(request.routeOptions.url ?? '')) return false;
  return request.routeOptions.config.rawBodyTypes === undefined && JSON_ALIASES.has(mediaTypeOf(contentType));
}

/** `masqueradeAs` is signed in the URL only; in a body it would silently act as the caller instead. */
function refuseMasqueradeInBody(body: unknown): void {
  if (body !== null && typeof body === 'object' && Object.hasOwn(body, 'masqueradeAs')) {
    throw new ApiError(
      'ValidationException',
      'validation.masqueradeInBody',
      'masqueradeAs goes in the query string (it is signed with the URL), never in the body.',
      { problematicField: 'masqueradeAs' },
    );
  }
}

/** Authentication: a promise when it has work to do, undefined when the route needs none. */
export type BeforeParse = (request: FastifyRequest, reply: FastifyReply) => Promise<void> | undefined;

/** The JSON body, parsed now that the caller is known; an absent body reads as {} where a schema expects one. */
function parsePendingBody(request: FastifyRequest): void {
  if (request.jsonPending && request.rawBody) {
    request.body = parseJsonBody(request.rawBody);
    refuseMasqueradeInBody(request.body);
  }
  // Wyre clients post no body where every field is optional (or sent in the query): an absent
  // body reads as {}, so the schema can name a missing required field instead of "not an object".
  const rawRoute = request.routeOptions.config.rawBodyTypes !== undefined;
  if (request.body === undefined && request.routeOptions.schema?.body !== undefined && !rawRoute) {
    request.body = {};
  }
}

/**
 * Bodies are read as raw bytes first and kept for signature checks. JSON is parsed only after
 * `beforeParse` (authentication) has passed, so an unauthenticated caller learns nothing from
 * our parser and signatures are checked over exactly what arrived. JSON sent without a type or
 * under a JavaScript or plain-text type is read as JSON; an empty body of any type is no body.
 * Any other media type is refused with 415 unless the route lists it in `config.rawBodyTypes`
 * (the handler gets a Buffer).
 */
export function installBodyParsers(app: FastifyInstance, beforeParse?: BeforeParse) {
  app.removeAllContentTypeParsers();
  installLingeringClose(app);
  app.addContentTypeParser(
    /^application\/([\w.+-]+\+)?json(\s*;.*)?$/i,
    { parseAs: 'buffer' },
    (request, raw, done) => {
      request.rawBody = raw as Buffer;
      request.jsonPending = true;
      done(null, undefined);
    },
  );
  // Callback style: requests without authentication to wait for (open routes) finish without a promise.
  app.addHook('preValidation', (request, reply, done) => {
    const parse = () => {
      try {
        parsePendingBody(request);
      } catch (error) {
        return done(error as Error);
      }
      done();
    };
    const authenticating = beforeParse?.(request, reply);
    if (!authenticating) return parse();
    authenticating.then(parse, (error: Error) => done(error));
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, raw, done) => {
    const bytes = raw as Buffer;
    const contentType = request.headers['content-type'] ?? '';
    request.rawBody = bytes;
    if (acceptsRaw(request, contentType)) return done(null, bytes);
    // A body-less POST (a confirm) sent with whatever type the client library defaults to; an
    // upload route still names the types it takes.
    const takesJson = request.routeOptions.config.rawBodyTypes === undefined;
    if (bytes.length === 0 && takesJson) return done(null, undefined);
    if (readsAsJson(request, contentType)) {
      request.jsonPending = true;
      return done(null, undefined);
    }
    done(
      new ApiError(
        'UnsupportedMediaTypeException',
        'validation.unsupportedMediaType',
        `Unsupported Content-Type "${request.headers['content-type'] ?? ''}"; send application/json.`,
      ),
      undefined,
    );
  });
}

/**
 * A request refused before its body was read (413 over the body limit, with `Connection: close`
 * from Fastify) gets its answer read by the client: the connection closes only once the rest of
 * the body has been read and dropped, within bounds (see lingering-close.ts). Such refusals go
 * through the error path, so this costs nothing on requests that succeed.
 */
function installLingeringClose(app: FastifyInstance) {
  const lingering = new Set<Socket>();
  app.addHook('onError', (request, reply, _error, done) => {
    const closing = /close/i.test(String(reply.getHeader('connection') ?? ''));
    const socket = request.raw.socket as Socket | null;
    if (closing && !request.raw.complete && socket && !socket.destroyed && !lingering.has(socket)) {
      lingerUntilBodyRead(request.raw);
      lingering.add(socket);
      socket.once('close', () => lingering.delete(socket));
    }
    done();
  });
  // Shutting down: a client still sending an unwanted body is not waited for.
  app.addHook('preClose', (done) => {
    for (const socket of lingering) socket.destroy();
    done();
  });
}
