import type { OnboardingPageModel } from '../users/onboarding-service.ts';
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

function requirementList(model: OnboardingPageModel): SafeHtml {
  const items = model.requirements.map(
    (item) => html`<li data-field="${item.fieldId}">${FIELD_LABELS[item.fieldId] ?? item.fieldId}:
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
  return html`<ul id="requirements">${items}</ul>`;
}

export function onboardingPageHtml(model: OnboardingPageModel, token: string): string {
  const greeting = model.firstName
    ? html`<p id="greeting">Hello, <span id="first-name">${model.firstName}</span>.</p>`
    : '';
  let action: SafeHtml;
  if (model.closed) {
    action = html`<p id="closed">This account is closed. Please contact customer support.</p>`;
  } else if (model.onboarding === 'OPEN') {
    const label = model.sandbox ? 'Run the simulated identity check' : 'Submit for verification';
    const note = model.sandbox
      ? html`<p>Sandbox: no real identity check is made; submitting marks the check as passed.</p>`
      : html`<p>Your details will be reviewed by our compliance team.</p>`;
    action = html`${note}<form method="post" action="/onboarding/${token}">
<button type="submit" id="submit-check">${label}</button>
</form>`;
  } else {
    action = html`<p id="outcome">${model.onboarding === 'COMPLETE' ? 'Identity verification complete.' : 'Submitted. We will review your details.'}</p>`;
  }
  return page(
    'Identity verification',
    html`<h1>Identity verification</h1>
${greeting}
<p>To finish setting up your account we need the following:</p>
${requirementList(model)}
${action}`,
  );
}

export function errorPageHtml(status: number, message: string): string {
  const title = status === 410 ? 'Link expired' : status === 404 ? 'Link not valid' : 'Something went wrong';
  return page(title, html`<h1>${title}</h1><p id="error-message">${message}</p>`);
}
