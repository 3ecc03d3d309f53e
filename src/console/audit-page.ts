import type { AuditFilter, AuditRow } from '../operator/index.ts';
import { html } from '../web/index.ts';
import { nextPageLink, noticeOf, table, text, when } from './list-kit.ts';

/** The audit log's filters as the page's query string carries them (times as typed). */
export interface AuditQuery {
  actor?: string | undefined;
  action?: string | undefined;
  outcome?: AuditFilter['outcome'];
  target?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

const OUTCOMES = ['ok', 'denied', 'rejected'] as const;

export function auditHtml(query: AuditQuery, rows: AuditRow[], next: string | undefined, error?: string) {
  const field = (id: keyof AuditQuery, label: string, type = 'search', hint = '') =>
    html`<div class="field"><label for="${`audit-${id}`}">${label}</label>
<input id="${`audit-${id}`}" name="${id}" type="${type}" value="${query[id] ?? ''}" autocomplete="off"${
      hint === '' ? html`` : html` placeholder="${hint}"`
    }></div>`;
  const outcomes = html`<div class="field"><label for="audit-outcome">Outcome</label>
<select id="audit-outcome" name="outcome"><option value="">any</option>${OUTCOMES.map(
    (outcome) =>
      html`<option value="${outcome}"${query.outcome === outcome ? html` selected` : html``}>${outcome}</option>`,
  )}</select></div>`;
  const cells = rows.map((row) => [
    when(row.at),
    text(row.actor),
    html`<code>${row.action}</code>`,
    text(row.target),
    text(`${row.outcome} (${row.status})`),
    text(row.remote_ip),
    html`<code class="detail">${JSON.stringify(row.detail)}</code>`,
  ]);
  return html`<h1>Audit log</h1>
<form method="get" action="/console/audit" class="form filters">
${field('actor', 'Actor', 'search', 'operator-token or OP_…')}${field('action', 'Action starts with', 'search', 'PUT /operator/v1/')}
${outcomes}${field('target', 'Target', 'search', 'account:AC_…')}
${field('from', 'From (UTC)', 'datetime-local')}${field('to', 'Until (UTC)', 'datetime-local')}
<button class="button" type="submit">Filter</button>
</form>
${noticeOf('error', error)}
${table('Audited operator actions, newest first', ['When', 'Actor', 'Action', 'Target', 'Outcome', 'From', 'Detail'], cells, 'No audited action matches.')}
${nextPageLink('/console/audit', { ...query }, next)}`;
}
