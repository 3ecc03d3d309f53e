import type { FastifyRequest } from 'fastify';
import { invalidValue } from '../platform/errors.ts';
import { html, type SafeHtml } from '../web/index.ts';
import { notice } from './layout.ts';

/**
 * The pieces every console list shares: the page size, the `?after=` cursor (the last row's sort
 * key, opaque to the browser), the table and the link to the next page. Lists continue after a
 * key instead of skipping rows, so the hundredth page costs what the first does.
 */

export const PAGE_SIZE = 50;
const MAX_CURSOR_CHARS = 400;

export function encodeCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** The two parts of a cursor this server wrote, or undefined without one; anything else is 400. */
export function decodeCursor(raw: string | undefined): readonly [string, string] | undefined {
  if (raw === undefined || raw === '') return undefined;
  const refuse = () => invalidValue('after', 'This page link is not one the console made.');
  if (raw.length > MAX_CURSOR_CHARS || !/^[\w-]+$/.test(raw)) throw refuse();
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(parts) || parts.length !== 2) throw refuse();
  const [first, second] = parts as unknown[];
  if (typeof first !== 'string' || typeof second !== 'string') throw refuse();
  return [first, second];
}

/** Reads one row more than it shows: the extra row says whether there is a next page. */
export async function onePage<T>(
  read: (limit: number) => Promise<T[]>,
  keyOf: (row: T) => readonly string[],
): Promise<{ rows: T[]; next: string | undefined }> {
  const rows = await read(PAGE_SIZE + 1);
  if (rows.length <= PAGE_SIZE) return { rows, next: undefined };
  const shown = rows.slice(0, PAGE_SIZE);
  return { rows: shown, next: encodeCursor(keyOf(shown.at(-1)!)) };
}

/** A query string value as one short string (repeated or absurd values count as absent). */
export function queryText(request: FastifyRequest, name: string, maxLength = 200): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, maxLength);
}

/** The link to the page after this one, keeping the filters. */
export function nextPageLink(
  path: string,
  filters: Record<string, string | undefined>,
  next: string | undefined,
  param = 'after',
): SafeHtml {
  if (next === undefined) return html``;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined) query.set(name, value);
  query.set(param, next);
  return html`<p class="pager"><a href="${`${path}?${query}`}" rel="next">Next page</a></p>`;
}

/** A table with a caption, its header row and rows of cells; an empty list says so in words. */
export function table(caption: string, headers: readonly string[], rows: SafeHtml[][], empty: string) {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0"><table class="table">
<caption>${caption}</caption>
<thead><tr>${headers.map((header) => html`<th scope="col">${header}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

export const text = (value: string | number | null | undefined): SafeHtml => html`${value ?? '—'}`;

/** A time as operators read it everywhere in the console: UTC, to the second. */
export function when(value: Date | number | null | undefined): SafeHtml {
  if (value === null || value === undefined) return html`—`;
  const iso = new Date(value).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/** A message above the page's content: what a change did, or why it was refused. */
export function noticeOf(kind: 'ok' | 'error', message: string | undefined): SafeHtml {
  return message === undefined ? html`` : notice(kind, message);
}

/** A GET page's query string schema: the names it reads, each one short string; others are refused. */
export function queryNames(...names: string[]) {
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, { type: 'string', maxLength: 400 }])),
    additionalProperties: false,
  } as const;
}
