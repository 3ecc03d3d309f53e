import type { DocumentInfoRow } from '../documents/index.ts';
import type { ConsoleUserRow } from '../users/index.ts';
import { html, type SafeHtml } from '../web/index.ts';
import { balancesTable, ordersTable, transfersTable } from './account-page.ts';
import type { userTimeline } from './timelines.ts';
import { badge, facts, link, mono, table, text, utc } from './view-kit.ts';

type UserTimeline = NonNullable<Awaited<ReturnType<typeof userTimeline>>>;

/** A user's page: fields, scopes and their history, documents, balances, orders and transfers. */
export function userMain(t: UserTimeline): SafeHtml {
  const u = t.user;
  return html`<h1>User <span class="mono">${u.id}</span></h1>
<div class="panel">${facts([
    ['Account', link(`/console/accounts/${u.owner_account_id}`, u.owner_account_id)],
    ['Onboarding', text(u.onboarding_status)],
    ['Created (UTC)', utc(u.created_at)],
    ['Updated (UTC)', utc(u.updated_at)],
  ])}</div>
<h2>Scopes</h2>
${table(
  'Scopes',
  ['Scope', 'Status', 'Submitted (UTC)', 'Changed (UTC)'],
  t.scopes.map((s) => [text(s.scope), badge(s.status), utc(s.submitted_at), utc(s.updated_at)]),
  'No scope yet.',
)}
${t.scopes.some((s) => s.status === 'PENDING') ? html`<p><a href="/console/reviews/${u.id}">Review this user</a></p>` : ''}
<h2>Fields</h2>
${fieldsTable(u)}
<h2>Documents</h2>
${documentsList(t.documents)}
<h2>Scope history</h2>
${table(
  'Scope history',
  ['When (UTC)', 'Scope', 'From', 'To', 'Cause'],
  t.events.map((e) => [
    utc(e.at),
    text(e.scope),
    text(e.from_status ?? '—'),
    badge(e.to_status),
    text(e.cause),
  ]),
  'No change yet.',
)}
<h2>Balances</h2>
${balancesTable(t.balances)}
<h2>Card orders</h2>
${ordersTable(t.orders)}
<h2>Transfers</h2>
${transfersTable(t.transfers)}`;
}

/** Each field as submitted, its status and the error a reviewer returned it with. */
export function fieldsTable(user: ConsoleUserRow): SafeHtml {
  const rows = Object.entries(user.fields)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([fieldId, field]) => [
      text(fieldId),
      fieldValue(field.value),
      badge(field.status),
      text(field.error ?? ''),
    ]);
  return table('Fields', ['Field', 'Value', 'Status', 'Returned with'], rows, 'No field submitted.');
}

function fieldValue(value: unknown): SafeHtml {
  if (value === null || value === undefined || value === '') return html`<span class="muted">—</span>`;
  if (typeof value === 'object') {
    const document = value as { documentId?: unknown };
    if (typeof document.documentId === 'string') return link(`#${document.documentId}`, document.documentId);
    return mono(
      Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join(', '),
    );
  }
  return text(String(value));
}

const INLINE_IMAGES = new Set(['image/jpeg', 'image/png']);

/**
 * Each document as it is served by /console/documents/:id: images inline, other kinds as a link
 * (a PDF opens in its own sandboxed tab; the console's pages embed no object).
 */
export function documentsList(documents: DocumentInfoRow[]): SafeHtml {
  if (documents.length === 0) return html`<p class="muted">No document uploaded.</p>`;
  return html`<div class="documents">${documents.map((d) => {
    const href = `/console/documents/${d.id}`;
    const label = `${d.field_id}: ${d.doc_type}, ${d.media_type}, ${d.size_bytes} bytes, uploaded ${d.created_at.toISOString()}`;
    const preview = INLINE_IMAGES.has(d.media_type)
      ? html`<a href="${href}"><img src="${href}" alt="${d.doc_type} (${d.field_id}) of the user" width="320"></a>`
      : html`<a href="${href}">Open ${d.doc_type} (${d.media_type})</a>`;
    return html`<section id="${d.id}" class="panel" aria-label="${d.field_id}"><p>${label}</p>${preview}</section>`;
  })}</div>`;
}
