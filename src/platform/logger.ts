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

const SENSITIVE_QUERY_NAME = /secret|token|password|cardnumber|cvv/i;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * Masks the value of every query parameter whose name, once percent-decoded as the query parser
 * decodes it, looks secret: `?secret%4Bey=` reaches a handler as `secretKey` and must be masked too.
 */
export function maskUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url.slice(start + 1).split('&');
  const masked = pairs.map((pair) => {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    return SENSITIVE_QUERY_NAME.test(decodedName(name)) ? `${name}=[REDACTED]` : pair;
  });
  return `${url.slice(0, start)}?${masked.join('&')}`;
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
