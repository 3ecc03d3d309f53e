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

type LogMethod = (...args: unknown[]) => void;
interface ParentLogger {
  level: string;
  isLevelEnabled(level: string): boolean;
  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): ParentLogger;
  [method: string]: unknown;
}

const LOG_METHODS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * A request's logger that becomes a real pino child only when something is logged at an
 * enabled level. Creating a child per request (bindings serialised, redaction set up) cost
 * several percent of a short request's CPU although at the usual `warn` level most requests
 * never log a line.
 */
class LazyChildLogger {
  private real: ParentLogger | undefined;
  declare fatal: LogMethod;
  declare error: LogMethod;
  declare warn: LogMethod;
  declare info: LogMethod;
  declare debug: LogMethod;
  declare trace: LogMethod;

  constructor(
    private readonly parent: ParentLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: Record<string, unknown>,
  ) {}

  get level(): string {
    return this.real?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.realize().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.real ?? this.parent).isLevelEnabled(level);
  }

  silent(): void {}

  child(bindings: Record<string, unknown>, options?: Record<string, unknown>) {
    return this.realize().child(bindings, options);
  }

  private realize(): ParentLogger {
    this.real ??= this.parent.child(this.bindings, this.options);
    return this.real;
  }

  static {
    for (const method of LOG_METHODS) {
      LazyChildLogger.prototype[method] = function (this: LazyChildLogger, ...args: unknown[]) {
        if (!this.isLevelEnabled(method)) return;
        (this.realize()[method] as LogMethod)(...args);
      };
    }
  }
}

/** Fastify's childLoggerFactory: see LazyChildLogger. */
export function lazyChildLogger(
  logger: unknown,
  bindings: Record<string, unknown>,
  options: Record<string, unknown>,
) {
  const parent = logger as ParentLogger;
  // Fastify's no-op logger (logging off) has no levels to consult: its own child is free.
  if (typeof parent.isLevelEnabled !== 'function') return parent.child(bindings, options);
  return new LazyChildLogger(parent, bindings, options);
}
