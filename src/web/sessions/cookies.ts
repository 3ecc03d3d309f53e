import type { FastifyReply, FastifyRequest } from 'fastify';

export type SessionKind = 'console' | 'dashboard';

/** Each kind's cookie is sent only under its own path: a dashboard cookie never reaches /console. */
export const COOKIES: Record<SessionKind, { name: string; path: string }> = {
  console: { name: 'rampart_console', path: '/console' },
  dashboard: { name: 'rampart_dashboard', path: '/dashboard' },
};

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The session token of this kind from the Cookie header, when it has the token's exact shape. */
export function readSessionCookie(request: FastifyRequest, kind: SessionKind): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  const name = COOKIES[kind].name;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (TOKEN_PATTERN.test(value)) return value;
  }
  return undefined;
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure in
 * production. No Max-Age: the idle timeout on the server ends the session; the browser drops
 * the cookie when it closes.
 */
export function setSessionCookie(reply: FastifyReply, kind: SessionKind, token: string, secure: boolean) {
  const { name, path } = COOKIES[kind];
  const flags = `Path=${path}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  reply.header('set-cookie', `${name}=${token}; ${flags}`);
}

export function clearSessionCookie(reply: FastifyReply, kind: SessionKind, secure: boolean) {
  const { name, path } = COOKIES[kind];
  const flags = `Path=${path}; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
  reply.header('set-cookie', `${name}=; ${flags}`);
}
