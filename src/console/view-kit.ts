import { html, type SafeHtml } from '../web/index.ts';

/** Small pieces every console support page uses: times, statuses, tables, facts and pagers. */

/** Times in UTC ISO 8601, as the partner API's ISO forms and the logs show them. */
export function utc(at: Date | null | undefined): SafeHtml {
  if (!at) return html`<span class="muted">—</span>`;
  return html`<time datetime="${at.toISOString()}">${at.toISOString()}</time>`;
}

const GOOD = new Set(['COMPLETE', 'COMPLETED', 'DELIVERED', 'APPROVED', 'CAPTURED', 'ACTIVE', 'posted']);
const BAD = new Set([
  'FAILED',
  'CLOSED',
  'CHARGEBACK',
  'DECLINED',
  'VOIDED',
  'REJECTED',
  'EXPIRED',
  'REVERSED',
  'voided',
]);
const WAITING = new Set(['PENDING', 'RUNNING_CHECKS', 'PROCESSING', 'UNCONFIRMED', 'pending', 'AUTHORIZED']);

export function badge(status: string): SafeHtml {
  const tone = GOOD.has(status) ? ' ok' : BAD.has(status) ? ' bad' : WAITING.has(status) ? ' warn' : '';
  return html`<span class="badge${tone}">${status}</span>`;
}

export function facts(pairs: [string, SafeHtml | string | number | null | undefined][]): SafeHtml {
  return html`<dl class="facts">${pairs.map(
    ([name, value]) =>
      html`<dt>${name}</dt><dd>${value === null || value === undefined || value === '' ? html`<span class="muted">—</span>` : value}</dd>`,
  )}</dl>`;
}

export function table(caption: string, headers: string[], rows: SafeHtml[][], empty = 'None.'): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table class="table"><caption class="visually-hidden">${caption}</caption>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table></div>`;
}

export function text(value: string | number | null | undefined): SafeHtml {
  return html`${value ?? ''}`;
}

export function mono(value: string | null | undefined): SafeHtml {
  return value ? html`<span class="mono">${value}</span>` : html`<span class="muted">—</span>`;
}

export function link(href: string, label: string): SafeHtml {
  return html`<a href="${href}">${label}</a>`;
}

export function amount(value: string, currency: string): SafeHtml {
  return html`<span class="mono">${value}</span> ${currency}`;
}

/**
 * "Next page" as a link to the same path with the cursor parameter set; the other query
 * parameters are kept, so filters survive paging.
 */
export function pager(
  label: string,
  path: string,
  query: Record<string, string | undefined>,
  param: string,
  next: string | undefined,
): SafeHtml {
  if (next === undefined) return html``;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && name !== param) params.set(name, value);
  params.set(param, next);
  return html`<nav class="pager" aria-label="${label}"><a class="button secondary small" href="${path}?${params.toString()}">Next page</a></nav>`;
}
