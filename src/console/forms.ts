import type { FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../web/index.ts';
import { csrfField, type WebSession } from '../web/sessions/index.ts';

/** A posted form's fields, each the first value given (forms here never repeat a name). */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  if (body === null || typeof body !== 'object') return {};
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields[name] = first;
  }
  return fields;
}

export const isAdmin = (session: WebSession) => session.role === 'admin';

/**
 * A form that changes something: posted back with the session's CSRF token. Only an admin sees
 * it; the route's guard refuses anyone else's post whatever the page showed.
 */
export function changeForm(
  session: WebSession,
  action: string,
  fields: SafeHtml,
  submit: string,
  extraClass = '',
): SafeHtml {
  if (!isAdmin(session)) return html``;
  return html`<form method="post" action="${action}" class="${`form ${extraClass}`.trim()}">
${csrfField(session)}${fields}
<button class="${extraClass === 'inline' ? 'button danger small' : 'button'}" type="submit">${submit}</button>
</form>`;
}

/** A labelled text input; `id` is unique on its page. */
export function textInput(
  id: string,
  name: string,
  label: string,
  value: string | undefined,
  extra: { inputmode?: string; hint?: string } = {},
): SafeHtml {
  const hintId = extra.hint === undefined ? undefined : `${id}-hint`;
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${name}" type="text" value="${value ?? ''}" autocomplete="off"${
    extra.inputmode === undefined ? html`` : html` inputmode="${extra.inputmode}"`
  }${hintId === undefined ? html`` : html` aria-describedby="${hintId}"`}>
${hintId === undefined ? html`` : html`<p class="hint" id="${hintId}">${extra.hint}</p>`}</div>`;
}
