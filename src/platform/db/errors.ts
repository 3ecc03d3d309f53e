import pg from 'pg';

/**
 * Errors that mean "the database cannot be reached right now" (stopped, restarting, network cut),
 * as opposed to a fault in our SQL. The error handler answers them 503 with `transient: true`:
 * the request changed nothing it acknowledged, and the same request may be sent again.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now; class 08 is connection_exception.
const SERVER_CODES = /^(57P0[123]|08\d{3})$/;

// pg and pg-pool raise these as plain Errors without a code.
const CLIENT_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * Errors that mean "the database gave up on this statement under load": a statement timeout
 * (57014), a serialization failure (40001) or a deadlock victim (40P01). The transaction rolled
 * back whole, so nothing was changed, and the same request sent again may well succeed.
 */
const BUSY_CODES = new Set(['57014', '40001', '40P01']);

export function isDatabaseBusy(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && BUSY_CODES.has(code);
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.test(code))) return true;
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return typeof message === 'string' && CLIENT_MESSAGES.some((text) => message.startsWith(text));
}

/**
 * PostgreSQL answered a statement with an error, so the statement and its transaction rolled
 * back and nothing of it was written. A socket error (EPIPE, ECONNRESET) or a connection-class
 * SQLSTATE (08…) leaves the outcome unknown instead.
 */
export function refusedByDatabase(error: unknown): boolean {
  return error instanceof pg.DatabaseError && !String(error.code).startsWith('08');
}
