import type { OnboardingPageModel, ScopeNeeds } from '../users/onboarding-service.ts';
import { html, page, type SafeHtml } from './html.ts';

/** Human names for the fieldIds the page lists. */
const FIELD_LABELS: Record<string, string> = {
  firstName: 'First name',
  lastName: 'Last name',
  dateOfBirth: 'Date of birth',
  residenceAddress: 'Residence address',
  cellphone: 'Mobile phone number',
  email: 'E-mail address',
  governmentIdFront: 'Government ID (front)',
  governmentIdBack: 'Government ID (back)',
};

/** Human names of the scopes, as a user knows them. */
const SCOPE_LABELS: Record<string, string> = {
  TRANSFER: 'Transfers',
  ACH: 'Bank payments',
  DEBIT_CARD_L2: 'Higher card limits',
};

const label = (fieldId: string) => FIELD_LABELS[fieldId] ?? fieldId;

function requirementList(model: OnboardingPageModel): SafeHtml {
  const items = model.requirements.map(
    (item) => html`<li data-field="${item.fieldId}">${label(item.fieldId)}:
<span class="status">${item.status === 'SUBMITTED' ? 'provided' : 'still needed'}</span>${
      item.error ? html` <span class="error">(${item.error})</span>` : ''
    }</li>`,
  );
  const check =
    model.onboarding === 'COMPLETE'
      ? 'done'
      : model.onboarding === 'SUBMITTED'
        ? 'submitted, under review'
        : 'still needed';
  items.push(html`<li data-field="identityCheck">Identity check: <span class="status">${check}</span></li>`);
  if (model.scopes.some((s) => s.paymentMethodNeeded && s.status !== 'APPROVED'))
    items.push(
      html`<li data-field="paymentMethod">Bank account: <span class="status">still needed</span></li>`,
    );
  return html`<ul id="requirements">${items}</ul>`;
}

/** What each scope still needs, so nothing OPEN hides behind a finished identity check. */
function scopeWants(scope: ScopeNeeds): string[] {
  return [
    ...scope.openFields.map(label),
    ...(scope.identityCheckNeeded ? ['Identity check'] : []),
    ...(scope.paymentMethodNeeded ? ['Bank account'] : []),
  ];
}

function scopeStatusText(scope: ScopeNeeds): string {
  if (scope.status === 'CLOSED') return 'closed';
  if (scope.status === 'APPROVED') return 'approved';
  const wants = scopeWants(scope);
  return wants.length > 0 ? `still needs ${wants.join(', ')}` : 'under review';
}

function scopeList(model: OnboardingPageModel): SafeHtml | string {
  if (model.scopes.length === 0) return '';
  const items = model.scopes.map(
    (scope) => html`<li data-scope="${scope.scope}">${SCOPE_LABELS[scope.scope] ?? scope.scope}:
<span class="status">${scopeStatusText(scope)}</span></li>`,
  );
  return html`<h2>By service</h2>
<ul id="scopes">${items}</ul>`;
}

/** Everything still needed, once, in the order the page lists it. */
function stillNeeded(model: OnboardingPageModel): string[] {
  const wanted = model.requirements
    .filter((item) => item.status === 'OPEN')
    .map((item) => label(item.fieldId));
  const waiting = model.scopes.filter((scope) => scope.status !== 'APPROVED');
  if (waiting.some((scope) => scope.identityCheckNeeded)) wanted.push('Identity check');
  if (waiting.some((scope) => scope.paymentMethodNeeded)) wanted.push('Bank account');
  return wanted;
}

/** The closing line; it says "complete" only when every scope is approved. */
function outcomeText(model: OnboardingPageModel): string {
  if (model.progress === 'complete') return 'Identity verification complete.';
  if (model.progress === 'underReview') return 'Submitted. Your details are under review.';
  const check = model.onboarding === 'COMPLETE' ? 'Identity check passed.' : 'Identity check submitted.';
  return `${check} Still needed: ${stillNeeded(model).join(', ')}.`;
}

export function onboardingPageHtml(model: OnboardingPageModel, token: string): string {
  const greeting = model.firstName
    ? html`<p id="greeting">Hello, <span id="first-name">${model.firstName}</span>.</p>`
    : '';
  let action: SafeHtml;
  if (model.progress === 'closed') {
    action = html`<p id="closed">This account is closed. Please contact customer support.</p>`;
  } else if (model.onboarding === 'OPEN') {
    const button = model.sandbox ? 'Run the simulated identity check' : 'Submit for verification';
    const note = model.sandbox
      ? html`<p>Sandbox: no real identity check is made; submitting marks the check as passed.</p>`
      : html`<p>Your details will be reviewed by our compliance team.</p>`;
    action = html`${note}<form method="post" action="/onboarding/${token}">
<button type="submit" id="submit-check">${button}</button>
</form>`;
  } else {
    action = html`<p id="outcome" data-progress="${model.progress}">${outcomeText(model)}</p>`;
  }
  return page(
    'Identity verification',
    html`<h1>Identity verification</h1>
${greeting}
<p>To finish setting up your account we need the following:</p>
${requirementList(model)}
${scopeList(model)}
${action}`,
  );
}

export function errorPageHtml(status: number, message: string): string {
  const title = status === 410 ? 'Link expired' : status === 404 ? 'Link not valid' : 'Something went wrong';
  return page(title, html`<h1>${title}</h1><p id="error-message">${message}</p>`);
}
