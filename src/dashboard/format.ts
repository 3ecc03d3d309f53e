import type { Money } from '../platform/money.ts';
import { html, type SafeHtml } from '../web/index.ts';

/** An amount exactly as stored: every digit, never a float, never an exponent. */
export function amount(value: Money | null | undefined, currency?: string): string {
  if (value === null || value === undefined) return '—';
  return currency ? `${value.toFixed()} ${currency}` : value.toFixed();
}

/** A moment in UTC, to the second, in a <time> the browser can read. */
export function when(value: Date | number | null | undefined): SafeHtml {
  if (value === null || value === undefined) return html`—`;
  const date = typeof value === 'number' ? new Date(value) : value;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/** A table: the caption names it, headers are column headers, an empty list says so. */
export function table(caption: string, headers: string[], rows: SafeHtml[][], empty: string): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  const head = headers.map((header) => html`<th scope="col">${header}</th>`);
  const body = rows.map((cells) => html`<tr>${cells.map((cell) => html`<td>${cell}</td>`)}</tr>`);
  return html`<div class="table-wrap"><table><caption>${caption}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** The link to the next page (keyset: after the last row shown), when there is one. */
export function nextPage(path: string, after: string | undefined): SafeHtml {
  if (after === undefined) return html``;
  return html`<p class="pager"><a href="${path}?after=${encodeURIComponent(after)}" rel="next" id="next-page">Next page</a></p>`;
}

export function status(value: string): SafeHtml {
  return html`<span class="status status-${value.toLowerCase()}">${value}</span>`;
}

/** A definition list of label and value pairs (a record's page). */
export function facts(pairs: [string, SafeHtml | string][]): SafeHtml {
  return html`<dl class="facts">${pairs.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>`;
}
