/**
 * Browser sessions of the console and the partner dashboard (docs/contract.md, decision 135).
 * The cookie carries 32 random bytes; the table keeps their SHA-256. A session ends when it is
 * signed out, when it has been idle longer than RAMPART_WEB_SESSION_IDLE_MINUTES by the service
 * clock, or at the latest MAX_SESSION_HOURS after it began.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { open, randomToken, seal, sha256Hex } from '../../platform/crypto.ts';
import { clearSessionCookie, readSessionCookie, type SessionKind, setSessionCookie } from './cookies.ts';
import {
  endSessionRow,
  endSessionsBySubject,
  findOpenSession,
  insertSession,
  type SessionRow,
  type SessionStage,
  touchSession,
} from './store.ts';

export type { SessionKind, SessionStage };
export type OperatorRole = 'support' | 'reviewer' | 'admin';

export interface WebSession {
  /** The row id, never the cookie's token. */
  id: string;
  kind: SessionKind;
  /** OP_… (console) or AC_… (dashboard). */
  subject: string;
  /** The operator's e-mail or the partner account's name, for the page header. */
  label: string;
  /** Console only. */
  role: OperatorRole | undefined;
  /** Dashboard only: the API key that signed in (never its secret). */
  apiKey: string | undefined;
  /** The per-session synchronizer token every form carries as `_csrf`. */
  csrfToken: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    webSession?: WebSession;
  }
}

/** What sessions need: the database, the service clock (idle timeouts), the master key and settings. */
export type SessionDeps = Pick<AppContext, 'db' | 'clock' | 'config'>;

export interface SessionOwner {
  kind: SessionKind;
  subject: string;
  label: string;
  role?: OperatorRole;
  apiKey?: string;
}

/** However active, a session is signed in again after this long. */
const MAX_SESSION_HOURS = 12;
/** A sign-in waiting for its second factor or TOTP enrolment lasts this long. */
const PENDING_STAGE_MINUTES = 10;
/** last_seen_at is written at most this often: the idle timeout is in minutes, a write per page is waste. */
const TOUCH_EVERY_MS = 30_000;
const CSRF_CONTEXT = 'web_sessions.csrf';

const secureCookies = (deps: SessionDeps) => deps.config.env === 'production';

/** Starts a session and sets its cookie (the browser's earlier session of this kind, if any, is replaced). */
export async function startSession(
  deps: SessionDeps,
  reply: FastifyReply,
  who: SessionOwner,
  stage: SessionStage = 'active',
): Promise<WebSession> {
  const token = randomToken(32);
  const csrfToken = randomToken(32);
  const id = await insertSession(deps.db, {
    tokenHash: sha256Hex(token),
    kind: who.kind,
    stage,
    subject: who.subject,
    label: who.label,
    role: who.role ?? null,
    apiKey: who.apiKey ?? null,
    csrfSealed: seal(deps.config.masterKey, csrfToken, CSRF_CONTEXT),
    now: deps.clock.now(),
  });
  setSessionCookie(reply, who.kind, token, secureCookies(deps));
  return {
    id,
    kind: who.kind,
    subject: who.subject,
    label: who.label,
    role: who.role,
    apiKey: who.apiKey,
    csrfToken,
  };
}

/** The browser's open session of this kind, if any and still within its timeouts; touches last-seen. */
export function loadSession(
  deps: SessionDeps,
  request: FastifyRequest,
  kind: SessionKind,
): Promise<WebSession | undefined> {
  return loadSessionAt(deps, request, kind, 'active');
}

/** As loadSession, for a sign-in still at one of its steps (the console's second factor, enrolment). */
export async function loadSessionAt(
  deps: SessionDeps,
  request: FastifyRequest,
  kind: SessionKind,
  stage: SessionStage,
): Promise<WebSession | undefined> {
  const token = readSessionCookie(request, kind);
  if (token === undefined) return undefined;
  const row = await findOpenSession(deps.db, sha256Hex(token), kind);
  if (!row || row.stage !== stage) return undefined;
  const now = deps.clock.now();
  if (expired(deps, row, now)) {
    await endSessionRow(deps.db, row.id, now);
    return undefined;
  }
  if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) await touchSession(deps.db, row.id, now);
  return {
    id: row.id,
    kind: row.kind,
    subject: row.subject,
    label: row.label,
    role: row.role ?? undefined,
    apiKey: row.apiKey ?? undefined,
    csrfToken: open(deps.config.masterKey, row.csrfSealed, CSRF_CONTEXT).toString(),
  };
}

function expired(deps: SessionDeps, row: SessionRow, now: Date): boolean {
  const idleMs =
    row.stage === 'active' ? deps.config.webSessionIdleMinutes * 60_000 : PENDING_STAGE_MINUTES * 60_000;
  if (now.getTime() - row.lastSeenAt.getTime() > idleMs) return true;
  return now.getTime() - row.createdAt.getTime() > MAX_SESSION_HOURS * 3_600_000;
}

/** Signs out: the row is ended (whatever stage it is at) and the cookie cleared. */
export async function endSession(
  deps: SessionDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: SessionKind,
): Promise<void> {
  const token = readSessionCookie(request, kind);
  if (token !== undefined) {
    const row = await findOpenSession(deps.db, sha256Hex(token), kind);
    if (row) await endSessionRow(deps.db, row.id, deps.clock.now());
  }
  clearSessionCookie(reply, kind, secureCookies(deps));
}

/** Ends every open session of one subject: an operator disabled or given another role, a key revoked. */
export function endSessionsOf(deps: SessionDeps, kind: SessionKind, subject: string): Promise<number> {
  return endSessionsBySubject(deps.db, kind, subject, deps.clock.now());
}
