import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseBusy, isDatabaseUnavailable } from '../db/errors.ts';
import { ApiError, type ErrorEnvelope, internalFault } from '../errors.ts';
import { newExceptionId } from '../ids.ts';
import { validationFailure } from './validation.ts';

/**
 * Turns every failure into the Wyre envelope of docs/contract.md (Errors). Fastify's own error shapes and stack
 * traces never reach the wire; faults we did not foresee become a 500 whose details are logged
 * under the exceptionId the partner sees.
 */
export function translateError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  // `throw null` or a rejected promise without a reason still reaches us: a fault, not a crash here.
  if (error === null || typeof error !== 'object') return undefined;
  if (isDatabaseUnavailable(error)) {
    return new ApiError(
      'ServiceUnavailableException',
      'service.databaseUnavailable',
      'The database is unavailable; retry the request shortly.',
    );
  }
  if (isDatabaseBusy(error)) {
    return new ApiError(
      'ServiceUnavailableException',
      'service.databaseBusy',
      'The database could not finish the request in time; nothing was changed. Retry it shortly.',
    );
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation)
    return validationFailure(fastifyError.validation, fastifyError.validationContext);
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(
        'JsonFormatException',
        'validation.jsonFormat',
        'The request body is not valid JSON.',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(
        'PayloadTooLargeException',
        'validation.payloadTooLarge',
        'The request body is too large.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new ApiError(
        'UnsupportedMediaTypeException',
        'validation.unsupportedMediaType',
        'Unsupported Content-Type; send application/json.',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(
        'ValidationException',
        'validation.contentLength',
        'Content-Length does not match the body.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // No id is that long: the router gives up on the segment before any route can answer.
      return new ApiError(
        'ValidationException',
        'validation.pathParameterTooLong',
        'A path segment is longer than 200 characters.',
      );
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new ApiError('ValidationException', 'validation.badUrl', 'The request URL is malformed.');
  }
  // Errors from body-parser internals (aborted streams, bad encodings) carry 4xx statuses.
  if (fastifyError.statusCode === 400) {
    return new ApiError('ValidationException', 'validation.badRequest', 'The request could not be read.');
  }
  return undefined;
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  exceptionIdPrefix: string,
) {
  const exceptionId = newExceptionId(exceptionIdPrefix);
  const known = translateError(error);
  const apiError = known ?? internalFault();
  if (known) {
    // A 5xx we know (the database is down) is still worth an operator's attention.
    request.log[apiError.status >= 500 ? 'warn' : 'info'](
      { exceptionId, errorCode: apiError.errorCode, status: apiError.status },
      'request rejected',
    );
  } else {
    request.log.error({ exceptionId, err: error }, 'unexpected fault');
  }
  reply.code(apiError.status).headers(apiError.headers).type('application/json; charset=utf-8');
  return reply.send(apiError.toEnvelope(exceptionId));
}

/**
 * Malformed HTTP that never becomes a request (bad request line, header block past the limit):
 * answered on the socket with the same envelope, then the connection is closed.
 */
export function clientErrorResponder(exceptionIdPrefix: string) {
  return (error: FastifyError & { code?: string }, socket: Socket) => {
    if (!socket.writable) return;
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const envelope: ErrorEnvelope = {
      language: 'en',
      exceptionId: newExceptionId(exceptionIdPrefix),
      compositeType: '',
      subType: '',
      errorCode: tooLarge ? 'validation.headersTooLarge' : 'validation.badRequest',
      message: tooLarge ? 'Request headers or URL too large.' : 'Malformed HTTP request.',
      type: 'ValidationException',
      transient: false,
    };
    const body = JSON.stringify(envelope);
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  };
}

export function installErrorHandling(app: FastifyInstance, exceptionIdPrefix: string) {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error, exceptionIdPrefix));
}
