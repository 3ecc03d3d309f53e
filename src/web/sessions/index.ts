// STAND-IN for the kit of branch console-auth (/tmp/kit-spec.md): deleted before `git merge console-auth`.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { secretsEqual } from '../../platform/crypto.ts';
import { forbidden } from '../../platform/errors.ts';
import { html, type SafeHtml } from '../html.ts';

export type SessionKind = 'console' | 'dashboard';
export type OperatorRole = 'support' | 'reviewer' | 'admin';
export interface WebSession {
  id: string;
  kind: SessionKind;
  subject: string;
  label: string;
  role: OperatorRole | undefined;
  apiKey: string | undefined;
  csrfToken: string;
}
declare module 'fastify' {
  interface FastifyRequest {
    webSession?: WebSession;
  }
}
export type SessionDeps = Pick<AppContext, 'db' | 'clock' | 'config'>;
const sessions = new Map<string, WebSession>();
const COOKIE = { console: ['rampart_console', '/console'], dashboard: ['rampart_dashboard', '/dashboard'] };

function cookieOf(request: FastifyRequest, kind: SessionKind) {
  const [name] = COOKIE[kind];
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [k, v] = part.trim().split('=');
    if (k === name) return v;
  }
  return undefined;
}

export async function startSession(
  _deps: SessionDeps,
  reply: FastifyReply,
  who: { kind: SessionKind; subject: string; label: string; role?: OperatorRole; apiKey?: string },
): Promise<WebSession> {
  const token = randomBytes(32).toString('base64url');
  const session = {
    id: randomBytes(8).toString('hex'),
    kind: who.kind,
    subject: who.subject,
    label: who.label,
    role: who.role,
    apiKey: who.apiKey,
    csrfToken: randomBytes(32).toString('base64url'),
  };
  sessions.set(token, session);
  const [name, path] = COOKIE[who.kind];
  reply.header('set-cookie', `${name}=${token}; Path=${path}; HttpOnly; SameSite=Strict`);
  return session;
}

export async function loadSession(_deps: SessionDeps, request: FastifyRequest, kind: SessionKind) {
  const token = cookieOf(request, kind);
  const session = token ? sessions.get(token) : undefined;
  return session?.kind === kind ? session : undefined;
}

export async function endSession(
  _deps: SessionDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: SessionKind,
) {
  const token = cookieOf(request, kind);
  if (token) sessions.delete(token);
  const [name, path] = COOKIE[kind];
  reply.header('set-cookie', `${name}=; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=0`);
}

export function checkFormPost(request: FastifyRequest, session: WebSession): void {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const sameSite =
    (site === undefined || site === 'same-origin' || site === 'none') &&
    (origin === undefined || (URL.canParse(origin) && new URL(origin).host === request.host));
  const given = (request.body as Record<string, unknown> | undefined)?._csrf;
  if (!sameSite || typeof given !== 'string' || !secretsEqual(given, session.csrfToken))
    throw forbidden('This form was not sent from this site.', 'accessDenied.csrf');
}

export function csrfField(session: WebSession): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;
}

export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 32768 },
    (_r, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
}
