import type { FastifyServerOptions } from 'fastify';

/**
 * Log settings shared by the API and the workers. Secrets never reach a log line: credential
 * headers and secret-bearing body fields are censored by pino's redaction, and every URL logged
 * goes through maskUrl (capability tokens in paths and query strings, nested URLs included).
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
  '*.orderToken',
  '*.cardNumber',
  '*.number',
  '*.cvv',
  '*.card.number',
  '*.card.cvv',
  'body.secretKey',
  'body.debitCard',
];

const MASK = '[REDACTED]';

/**
 * Query parameters whose value is a secret or a capability: `secretKey` (POST
 * /v2/sessions/auth/key), `orderToken` (the checkout page), any other token, password or card data.
 */
const SENSITIVE_QUERY_NAME = /secret|token|password|cardnumber|cvv/i;

/**
 * Paths that carry a capability token: whoever holds the URL may act (fill in a user's KYC, decide
 * a 3-D Secure challenge). The segments written `:token` are masked wherever such a path appears,
 * in a request line or inside another URL's query (`returnUrl=…`), however often percent-encoded.
 */
const CAPABILITY_PATHS = [
  '/onboarding/:token',
  '/sandbox/3ds/:orderId/:token',
  '/card-processor/3ds/:orderId/:token',
  '/card-processor/return/:orderId/:token',
].map((template) => template.split('/').slice(1));

/** Percent-decodings of a nested value looked through; deeper ones are logged as they are. */
const MAX_NESTING = 8;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** A cheap first look: most paths logged hold no capability path at all. */
const CAPABILITY_HINT = new RegExp(CAPABILITY_PATHS.map((template) => `/${template[0]}/`).join('|'), 'i');

function maskPath(path: string): string {
  // The router percent-decodes segments (`/%6Fnboarding/…` is /onboarding/…), and so does this.
  if (!CAPABILITY_HINT.test(path.includes('%') ? decoded(path) : path)) return path;
  const segments = path.split('/');
  for (const template of CAPABILITY_PATHS) {
    // The capability path may follow a prefix (a proxy's mount point, an absolute URL's origin).
    for (let start = 1; start + template.length <= segments.length; start++) {
      const matches = template.every(
        (part, i) => part.startsWith(':') || decoded(segments[start + i]!).toLowerCase() === part,
      );
      if (!matches) continue;
      template.forEach((part, i) => {
        if (part === ':token') segments[start + i] = MASK;
      });
    }
  }
  return segments.join('/');
}

function maskQuery(query: string, depth: number): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      if (SENSITIVE_QUERY_NAME.test(decoded(name))) return `${name}=${MASK}`;
      return equals < 0 ? pair : `${name}=${maskValue(pair.slice(equals + 1), depth)}`;
    })
    .join('&');
}

/** A query value, which may itself be a URL or a query string, percent-encoded once or more. */
function maskValue(value: string, depth: number): string {
  if (depth >= MAX_NESTING) return value;
  const inner = decoded(value);
  if (inner === value) return maskUrlAt(value, depth + 1);
  const masked = maskValue(inner, depth + 1);
  return masked === inner ? value : encodeURIComponent(masked);
}

function maskUrlAt(url: string, depth: number): string {
  const start = url.indexOf('?');
  if (start >= 0) return `${maskPath(url.slice(0, start))}?${maskQuery(url.slice(start + 1), depth)}`;
  // Nested inside a query value, `a=1&orderToken=…` without a path is a query string too.
  return depth > 0 && url.includes('=') ? maskQuery(url, depth) : maskPath(url);
}

/**
 * The URL as it may be logged: capability segments of CAPABILITY_PATHS masked, and the value of
 * every query parameter whose name, once percent-decoded as the query parser decodes it, looks
 * secret (`?secret%4Bey=` reaches a handler as `secretKey`). Query values that are URLs
 * themselves (a `returnUrl`) are masked the same way, through each layer of percent-encoding.
 */
export function maskUrl(url: string): string {
  return maskUrlAt(url, 0);
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
