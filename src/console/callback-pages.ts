import { html, type SafeHtml } from '../web/index.ts';
import { csrfField, type WebSession } from '../web/sessions/index.ts';
import type { CallbackFilter, CallbackView } from './callbacks.ts';
import { attemptsList } from './timeline-sections.ts';
import { badge, facts, link, mono, pager, table, text, utc } from './view-kit.ts';

const STATUSES = ['FAILED', 'PENDING', 'DELIVERED'] as const;

export function callbacksMain(
  filter: CallbackFilter,
  rows: CallbackView[],
  next: string | undefined,
): SafeHtml {
  const query = { account: filter.partnerId, status: filter.status };
  return html`<h1>Callback deliveries</h1>
<div class="panel">
<form class="form" method="get" action="/console/callbacks">
<div class="field-row">
<div class="field"><label for="account">Partner account</label>
<input id="account" name="account" value="${filter.partnerId ?? ''}" placeholder="AC_…" autocomplete="off" spellcheck="false"></div>
<div class="field"><label for="status">Status</label>
<select id="status" name="status"><option value="">Failed first, then newest</option>${STATUSES.map(
    (s) => html`<option value="${s}"${filter.status === s ? html` selected` : ''}>${s}</option>`,
  )}</select></div>
</div>
<div class="actions"><button type="submit">Filter</button></div>
</form>
</div>
${table(
  'Callback deliveries',
  ['Delivery', 'Queued (UTC)', 'Status', 'About', 'Attempts', 'Last answer'],
  rows.map((c) => [
    link(`/console/callbacks/${c.id}`, c.id),
    utc(c.createdAt),
    badge(c.status),
    mono(c.trigger),
    text(`${c.attempts} of ${c.maxAttempts}`),
    text(lastAnswer(c)),
  ]),
  'No delivery matches.',
)}
${pager('More deliveries', '/console/callbacks', query, 'after', next)}`;
}

function lastAnswer(c: CallbackView): string {
  const status = c.lastStatusCode === null ? '' : `HTTP ${c.lastStatusCode}`;
  if (!c.lastError || c.lastError === status) return status;
  return status ? `${status} — ${c.lastError}` : c.lastError;
}

/** Where the delivery is about: the order's or the transfer's page. */
function subjectLink(trigger: string): SafeHtml {
  const [kind, id] = trigger.split(':');
  if (kind === 'order' && id) return link(`/console/orders/${id}`, trigger);
  if (kind === 'transfer' && id) return link(`/console/transfers/${id}`, trigger);
  return mono(trigger);
}

export function callbackMain(session: WebSession, c: CallbackView, done: boolean): SafeHtml {
  const canResend = session.role === 'admin' && c.status !== 'PENDING';
  const resend = canResend
    ? html`<form method="post" action="/console/callbacks/${c.id}/resend">${csrfField(session)}<button id="resend" type="submit">Resend</button></form>`
    : html`<p class="muted">${c.status === 'PENDING' ? 'Queued: it is sent again by itself.' : 'Resending needs the admin role.'}</p>`;
  return html`<h1>Delivery <span class="mono">${c.id}</span></h1>
${done ? html`<div class="notice ok" role="status">Queued again.</div>` : ''}
<div class="panel">${facts([
    ['Status', badge(c.status)],
    ['About', subjectLink(c.trigger)],
    ['Partner', link(`/console/accounts/${c.partnerId}`, c.partnerId)],
    ['URL', mono(c.url)],
    ['Attempts', text(`${c.attempts} of ${c.maxAttempts}`)],
    ['Queued (UTC)', utc(c.createdAt)],
  ])}
<div class="actions">${resend}</div></div>
<h2>Attempts and answers</h2>
<div class="panel">${attemptsList(c)}</div>
<h2>Body sent</h2>
<pre class="panel mono">${c.body}</pre>`;
}
