import type { FastifyServerOptions } from 'fastify';

/**
 * Log settings shared by the API and the workers. Secrets never reach a log line: credential
 * headers and secret-bearing body fields are censored by pino's redaction, and query strings
 * (which may carry `secretKey` for POST /v2/sessions/auth/key) are masked before logging.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-signature"]',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  '*.secretKey',
  '*.secret',
  '*.password',
  '*.token',
  '*.cardNumber',
  '*.number',
  '*.cvv',
  '*.card.number',
  '*.card.cvv',
  'body.secretKey',
  'body.debitCard',
];

const SENSITIVE_QUERY_PARAMS = /([?&](?:secretKey|secret|token|cardNumber|cvv)=)[^&#]*/gi;

export function maskUrl(url: string): string {
  return url.replace(SENSITIVE_QUERY_PARAMS, '$1[REDACTED]');
}

interface LoggedRequest {
  method: string;
  url: string;
  ip?: string;
  routeOptions?: { url?: string };
}

export function loggerOptions(
  level: string,
  stream?: { write(line: string): void },
): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    serializers: {
      req: (req: LoggedRequest) => ({ method: req.method, url: maskUrl(req.url), remoteAddress: req.ip }),
    },
  };
}
