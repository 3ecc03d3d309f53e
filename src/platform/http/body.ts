import type { FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { ApiError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received: signatures are computed over these bytes. */
    rawBody?: Buffer;
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
  try {
    // Rejects __proto__ and constructor.prototype keys: hostile JSON must not poison objects.
    return sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw new ApiError('JsonFormatException', 'validation.jsonFormat', 'The request body is not valid JSON.');
  }
}

function acceptsRaw(request: FastifyRequest, contentType: string): boolean {
  const allowed = request.routeOptions.config.rawBodyTypes;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return allowed?.includes(mediaType) === true;
}

/**
 * JSON is parsed from the raw bytes we keep; any other media type is refused with 415
 * unless the route lists it in `config.rawBodyTypes`, in which case the handler gets a Buffer.
 */
export function installBodyParsers(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/([\w.+-]+\+)?json(\s*;.*)?$/i,
    { parseAs: 'buffer' },
    (request, raw, done) => {
      const bytes = raw as Buffer;
      request.rawBody = bytes;
      try {
        done(null, parseJsonBody(bytes));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, raw, done) => {
    const bytes = raw as Buffer;
    request.rawBody = bytes;
    if (acceptsRaw(request, request.headers['content-type'] ?? '')) return done(null, bytes);
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
