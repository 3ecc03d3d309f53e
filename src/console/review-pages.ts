import type { PendingScopeRow } from '../users/index.ts';
import { html, type SafeHtml } from '../web/index.ts';
import { csrfField, type WebSession } from '../web/sessions/index.ts';
import { returnableFields, type reviewModel } from './reviews.ts';
import { documentsList, fieldsTable } from './user-page.ts';
import { badge, facts, link, pager, table, text, utc } from './view-kit.ts';

type ReviewModel = NonNullable<Awaited<ReturnType<typeof reviewModel>>>;

export function queueMain(rows: PendingScopeRow[], next: string | undefined): SafeHtml {
  return html`<h1>KYC review queue</h1>
<p class="muted">Scopes awaiting review, oldest submission first.</p>
${table(
  'Scopes awaiting review',
  ['User', 'Scope', 'Submitted (UTC)', 'Partner'],
  rows.map((r) => [
    link(`/console/reviews/${r.user_id}`, r.user_id),
    text(r.scope),
    utc(r.submitted_at),
    link(`/console/accounts/${r.partner_id}`, r.partner_id),
  ]),
  'Nothing awaits review.',
)}
${pager('More reviews', '/console/reviews', {}, 'after', next)}`;
}

const DONE: Record<string, string> = {
  approve: 'Approved.',
  return: 'Returned to the user.',
  close: 'The user is closed.',
};

/** One user under review: fields, documents inline, and the decision forms of each PENDING scope. */
export function reviewMain(session: WebSession, m: ReviewModel, done: string | undefined): SafeHtml {
  const u = m.user;
  const canDecide = session.role === 'reviewer' || session.role === 'admin';
  const pending = m.scopes.filter((s) => s.status === 'PENDING');
  const notice =
    done && Object.hasOwn(DONE, done) ? html`<div class="notice ok" role="status">${DONE[done]}</div>` : '';
  return html`<h1>Review <span class="mono">${u.id}</span></h1>
${notice}
<div class="panel">${facts([
    ['Account', link(`/console/accounts/${u.owner_account_id}`, u.owner_account_id)],
    ['Scopes', html`${m.scopes.map((s) => html`${s.scope} ${badge(s.status)} `)}`],
    ['Onboarding', text(u.onboarding_status)],
    ['Whole timeline', link(`/console/users/${u.id}`, 'User page')],
  ])}</div>
<h2>Fields</h2>
${fieldsTable(u)}
<h2>Documents</h2>
${documentsList(m.documents)}
<h2>Decisions</h2>
${
  pending.length === 0
    ? html`<p class="muted">No scope of this user awaits review.</p>`
    : canDecide
      ? pending.map((s) => decisionForms(session, u.id, s.scope))
      : html`<p class="muted">Decisions need the reviewer role.</p>`
}`;
}

function decisionForms(session: WebSession, userId: string, scope: string): SafeHtml {
  const action = (kind: string) => `/console/reviews/${userId}/${scope}/${kind}`;
  const fields = returnableFields(scope);
  const id = (name: string) => `${scope}-${name}`;
  return html`<section class="panel" aria-labelledby="${id('title')}">
<h3 id="${id('title')}">${scope}</h3>
<div class="actions">
<form method="post" action="${action('approve')}">${csrfField(session)}<button id="${id('approve')}" type="submit">Approve ${scope}</button></form>
<form method="post" action="${action('close')}">${csrfField(session)}<button class="danger" type="submit">Close the user</button></form>
</div>
<form class="form" method="post" action="${action('return')}">${csrfField(session)}
<fieldset><legend>Return to the user</legend>
<div class="field"><label for="${id('field')}">Field to correct</label>
<select id="${id('field')}" name="field" required>${fields.map((f) => html`<option value="${f}">${f}</option>`)}</select></div>
<div class="field"><label for="${id('reason')}">Reason shown to the user</label>
<textarea id="${id('reason')}" name="reason" maxlength="500" required></textarea></div>
<div class="actions"><button class="secondary" type="submit">Return ${scope}</button></div>
</fieldset>
</form>
</section>`;
}
