/**
 * Cross-site form posts are refused twice over (docs/contract.md, decision 136): the form must
 * carry the session's synchronizer token as `_csrf` (compared in constant time), and the
 * browser's own word on where the post came from (`Sec-Fetch-Site`, `Origin`) must say this
 * site. SameSite=Strict cookies are the third fence.
 */
import type { FastifyRequest } from 'fastify';
import { secretsEqual } from '../../platform/crypto.ts';
import { forbidden } from '../../platform/errors.ts';
import { html, type SafeHtml } from '../html.ts';
import type { WebSession } from './sessions.ts';

export const CSRF_FIELD = '_csrf';

const refused = () =>
  forbidden('This form was not sent from this site. Reload the page and try again.', 'accessDenied.csrf');

/** Throws 403 unless the post is this session's own form, sent from this site. */
export function checkFormPost(request: FastifyRequest, session: WebSession): void {
  if (!sameOrigin(request)) throw refused();
  const body = request.body as Record<string, unknown> | undefined;
  const given = body?.[CSRF_FIELD];
  if (typeof given !== 'string' || !secretsEqual(given, session.csrfToken)) throw refused();
}

/**
 * Browsers send Sec-Fetch-Site and Origin with every form post; a client that sends neither is no
 * browser on another site's page, and still needs the token.
 */
function sameOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.host;
  } catch {
    return false; // `Origin: null` (a sandboxed frame, a redirect across sites) and garbage
  }
}

/** The hidden field every console and dashboard form carries. */
export function csrfField(session: WebSession): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${session.csrfToken}">`;
}
