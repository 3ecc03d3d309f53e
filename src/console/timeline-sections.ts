import type { ConsoleEntry, ConsoleHold } from '../ledger/index.ts';
import { html, type SafeHtml } from '../web/index.ts';
import type { CallbackView } from './callbacks.ts';
import type { StatusEvent } from './timelines.ts';
import { badge, link, mono, table, text, utc } from './view-kit.ts';

/** The sections an order's and a transfer's pages share: status history, ledger, callbacks. */

export function historySection(events: StatusEvent[]): SafeHtml {
  return html`<h2>Status history</h2>
${table(
  'Status history',
  ['When (UTC)', 'Status', 'Detail'],
  events.map((e) => [utc(e.at), badge(e.status), text(e.detail)]),
)}`;
}

export function ledgerSection(entries: ConsoleEntry[], hold: ConsoleHold | undefined): SafeHtml {
  const holdFacts = hold
    ? html`<p>Hold ${mono(hold.id)}: ${mono(hold.amount)} ${hold.currency} on ${mono(hold.owner)}, ${badge(hold.state)}, placed ${utc(hold.created_at)}${hold.resolved_at ? html`, resolved ${utc(hold.resolved_at)}` : ''}.</p>`
    : html``;
  return html`<h2>Ledger entries</h2>
${holdFacts}
${table(
  'Ledger entries and their postings',
  ['Entry', 'When (UTC)', 'Kind', 'Postings'],
  entries.map((entry) => [
    mono(entry.id),
    utc(new Date(entry.created_at)),
    text(entry.kind),
    html`<ul class="postings">${entry.postings.map(
      (p) =>
        html`<li><span class="mono">${p.amount}</span> ${p.currency} · <span class="mono">${p.owner}</span></li>`,
    )}</ul>`,
  ]),
  'No ledger entries yet.',
)}`;
}

export function callbacksSection(callbacks: CallbackView[]): SafeHtml {
  return html`<h2>Callbacks sent</h2>
${table(
  'Callbacks sent and their answers',
  ['Delivery', 'Queued (UTC)', 'Status', 'URL', 'Answers'],
  callbacks.map((c) => [
    link(`/console/callbacks/${c.id}`, c.id),
    utc(c.createdAt),
    badge(c.status),
    mono(c.url),
    attemptsList(c),
  ]),
  'No callbacks sent.',
)}`;
}

export function attemptsList(callback: CallbackView): SafeHtml {
  if (callback.attemptLog.length === 0) return html`<span class="muted">No attempt yet</span>`;
  return html`<ol class="attempts">${callback.attemptLog.map(
    (a) =>
      html`<li>${utc(a.startedAt)}: ${a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`} in ${a.latencyMs} ms${a.error ? html` — ${a.error}` : ''}</li>`,
  )}</ol>`;
}
