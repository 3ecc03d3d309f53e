import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../platform/errors.ts';
import { newExceptionId } from '../platform/ids.ts';
import { html, PAGE_SECURITY_HEADERS, type SafeHtml } from '../web/index.ts';
import { accessOf } from './guard.ts';
import { dashboardPage, notice, plainPage } from './layout.ts';

/**
 * Every dashboard answer is a page under the hosted pages' headers (CSP without 'unsafe-inline',
 * no-store), but with `Referrer-Policy: same-origin`: under `no-referrer` a browser posts our own
 * forms with `Origin: null`, which checkFormPost rightly refuses as cross-site. Other sites still
 * get no referrer.
 */
const DASHBOARD_HEADERS = { ...PAGE_SECURITY_HEADERS, 'referrer-policy': 'same-origin' };

export function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).headers(DASHBOARD_HEADERS).type('text/html; charset=utf-8').send(body);
}

/** A signed-in page of the nav entry `current`. */
export function sendDashboardPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { current: string; title: string; main: SafeHtml; status?: number },
) {
  const { session, sandbox } = accessOf(request);
  return sendPage(
    reply,
    page.status ?? 200,
    dashboardPage({ session, sandbox, current: page.current }, page.title, page.main),
  );
}

/** The `after` cursor of a list page: an id, as the previous page's last row named it. */
export const AfterQuery = {
  type: 'object',
  properties: { after: { type: 'string', minLength: 1, maxLength: 64 } },
  additionalProperties: false,
} as const;

export const PAGE_SIZE = 25;

/** Reads one more row than shown: when it exists, the last shown row's id is the next page's cursor. */
export function pageOf<T extends { id: string }>(rows: T[]): { shown: T[]; after: string | undefined } {
  if (rows.length <= PAGE_SIZE) return { shown: rows, after: undefined };
  const shown = rows.slice(0, PAGE_SIZE);
  return { shown, after: shown.at(-1)!.id };
}

/** One field of a posted form, trimmed and bounded; '' when absent. */
export function formField(body: unknown, name: string, maxLength = 2000): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.trim().slice(0, maxLength) : '';
}

/**
 * People read these answers, so refusals are pages (the envelope's message in plain words, the
 * nav kept when a session is open); a fault shows only a reference the log carries.
 */
export function dashboardErrorPage(exceptionIdPrefix: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = error instanceof ApiError && error.status < 500;
    const status = known
      ? (error as ApiError).status
      : typeof error.statusCode === 'number' && error.statusCode < 500
        ? error.statusCode
        : 500;
    let message = known ? error.message : 'This request could not be handled.';
    if (status >= 500) {
      const reference = newExceptionId(exceptionIdPrefix);
      request.log.error({ err: error, exceptionId: reference }, 'dashboard page failed');
      message = `Something went wrong on our side. Reference: ${reference}.`;
    }
    if (error instanceof ApiError) reply.headers(error.headers);
    const main = html`${notice('error', message)}<p><a href="/dashboard/orders">Back to the dashboard</a></p>`;
    const title =
      status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status >= 500 ? 'Error' : 'Refused';
    if (request.dashboard) return sendDashboardPage(request, reply, { current: '', title, main, status });
    return sendPage(reply, status, plainPage(title, main));
  };
}
