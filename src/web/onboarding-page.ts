import { ACCEPTED_MEDIA_TYPES, MAX_DOCUMENT_BYTES } from '../documents/index.ts';
import { SUPPORTED_COUNTRIES } from '../limits/index.ts';
import { FIELD_TYPES, type FieldId, type OnboardingPageModel, type ScopeNeeds } from '../users/index.ts';
import { ASSET_PATHS } from './assets.ts';
import { fillHtml } from './html.ts';
import { fill, hostedPage, html, messages, type SafeHtml } from './page-kit.ts';

/**
 * The hosted KYC onboarding page: what each scope still needs, a form for the fields still OPEN
 * (checked by the users domain's own validators when posted), document uploads (a file input
 * that opens the phone's camera), the identity check, and where the user stands. Every word
 * comes from the message catalogue; the forms are driven by our own script (onboarding.js).
 */
const M = messages.onboarding;

const label = (fieldId: string) =>
  Object.hasOwn(M.fields, fieldId) ? M.fields[fieldId as FieldId] : fieldId;

function requirementList(model: OnboardingPageModel): SafeHtml {
  const items = model.requirements.map(
    (item) => html`<li data-field="${item.fieldId}">${label(item.fieldId)}:
<span class="status">${item.status === 'SUBMITTED' ? M.provided : M.stillNeeded}</span>${
      item.error ? html` <span class="error">(${item.error})</span>` : ''
    }</li>`,
  );
  const check =
    model.onboarding === 'COMPLETE'
      ? M.identityDone
      : model.onboarding === 'SUBMITTED'
        ? M.identitySubmitted
        : M.stillNeeded;
  items.push(
    html`<li data-field="identityCheck">${M.identityCheck}: <span class="status">${check}</span></li>`,
  );
  if (model.scopes.some((s) => s.paymentMethodNeeded && s.status !== 'APPROVED'))
    items.push(
      html`<li data-field="paymentMethod">${M.bankAccount}: <span class="status">${M.stillNeeded}</span></li>`,
    );
  return html`<ul id="requirements" class="requirements">${items}</ul>`;
}

/** What each scope still needs, so nothing OPEN hides behind a finished identity check. */
function scopeWants(scope: ScopeNeeds): string[] {
  return [
    ...scope.openFields.map(label),
    ...(scope.identityCheckNeeded ? [M.identityCheck] : []),
    ...(scope.paymentMethodNeeded ? [M.bankAccount] : []),
  ];
}

function scopeStatusText(scope: ScopeNeeds): string {
  if (scope.status === 'CLOSED') return M.scopeClosed;
  if (scope.status === 'APPROVED') return M.scopeApproved;
  const wants = scopeWants(scope);
  return wants.length > 0 ? fill(M.scopeNeeds, { list: wants.join(', ') }) : M.scopeUnderReview;
}

function scopeList(model: OnboardingPageModel): SafeHtml | string {
  if (model.scopes.length === 0) return '';
  const items = model.scopes.map(
    (
      scope,
    ) => html`<li data-scope="${scope.scope}">${Object.hasOwn(M.scopes, scope.scope) ? M.scopes[scope.scope] : scope.scope}:
<span class="status">${scopeStatusText(scope)}</span></li>`,
  );
  return html`<h2>${M.byService}</h2>
<ul id="scopes">${items}</ul>`;
}

/** Everything still needed, once, in the order the page lists it. */
function stillNeeded(model: OnboardingPageModel): string[] {
  const wanted = model.requirements
    .filter((item) => item.status === 'OPEN')
    .map((item) => label(item.fieldId));
  const waiting = model.scopes.filter((scope) => scope.status !== 'APPROVED');
  if (waiting.some((scope) => scope.identityCheckNeeded)) wanted.push(M.identityCheck);
  if (waiting.some((scope) => scope.paymentMethodNeeded)) wanted.push(M.bankAccount);
  return wanted;
}

/** The closing line; it says "complete" only when every scope is approved. */
function outcomeText(model: OnboardingPageModel): string {
  if (model.progress === 'complete') return M.complete;
  if (model.progress === 'underReview') return M.submitted;
  const check = model.onboarding === 'COMPLETE' ? M.checkPassed : M.checkSubmitted;
  return `${check} ${fill(M.stillNeededList, { list: stillNeeded(model).join(', ') })}`;
}

function errorSlot(id: string): SafeHtml {
  return html`<p class="field-error" id="${id}-error" hidden></p>`;
}

function input(
  id: string,
  text: string,
  attrs: { type?: string; autocomplete?: string; hint?: string; optional?: boolean },
) {
  const described = `${id}-error${attrs.hint ? ` ${id}-hint` : ''}`;
  return html`<div class="field">
<label for="${id}">${text}</label>
<input id="${id}" type="${attrs.type ?? 'text'}" autocomplete="${attrs.autocomplete ?? 'off'}"${attrs.optional ? '' : html` required`}
 aria-describedby="${described}">
${attrs.hint ? html`<p class="hint" id="${id}-hint">${attrs.hint}</p>` : ''}${errorSlot(id)}
</div>`;
}

const COUNTRY_OPTIONS = SUPPORTED_COUNTRIES.map(
  ({ code, name }) => html`<option value="${code}">${name}</option>`,
);

/** The inputs of one OPEN field, by its type; `data-field` says which fieldId they make up. */
function fieldInputs(fieldId: FieldId): SafeHtml {
  const id = `o-${fieldId}`;
  const I = M.inputs;
  switch (FIELD_TYPES[fieldId]) {
    case 'NAME':
      return html`<div data-field="${fieldId}">${input(id, label(fieldId), { autocomplete: fieldId === 'firstName' ? 'given-name' : 'family-name' })}</div>`;
    case 'EMAIL':
      return html`<div data-field="${fieldId}">${input(id, label(fieldId), { type: 'email', autocomplete: 'email' })}</div>`;
    case 'CELLPHONE':
      return html`<div data-field="${fieldId}">${input(id, label(fieldId), { type: 'tel', autocomplete: 'tel', hint: I.cellphoneHint })}</div>`;
    case 'DATE_OF_BIRTH':
      return html`<div data-field="${fieldId}">${input(id, label(fieldId), { type: 'date', autocomplete: 'bday', hint: I.dateOfBirthHint })}</div>`;
    case 'ADDRESS':
      return html`<fieldset data-field="${fieldId}" data-kind="address"><legend>${label(fieldId)}</legend>
${input(`${id}-street1`, I.street1, { autocomplete: 'address-line1' })}
${input(`${id}-street2`, I.street2, { autocomplete: 'address-line2', optional: true })}
${input(`${id}-city`, I.city, { autocomplete: 'address-level2' })}
<div class="row">${input(`${id}-state`, I.state, { autocomplete: 'address-level1' })}${input(`${id}-postalCode`, I.postalCode, { autocomplete: 'postal-code' })}</div>
<div class="field"><label for="${id}-country">${I.country}</label>
<select id="${id}-country" autocomplete="country" required aria-describedby="${id}-country-error">
<option value="">${messages.checkout.choose}</option>${COUNTRY_OPTIONS}</select>${errorSlot(`${id}-country`)}</div>
</fieldset>`;
    case 'DOCUMENT':
      return html``;
  }
}

function detailsForm(model: OnboardingPageModel): SafeHtml | string {
  const open = model.requirements.filter(
    (item) => item.status === 'OPEN' && FIELD_TYPES[item.fieldId] !== 'DOCUMENT',
  );
  if (open.length === 0) return '';
  return html`<section aria-labelledby="details-heading">
<h2 id="details-heading">${M.detailsHeading}</h2>
<form id="details-form" method="post" action="${ASSET_PATHS.noScript}" novalidate>
${open.map((item) => fieldInputs(item.fieldId))}
<button type="submit" id="save-details">${M.detailsSave}</button>
</form>
</section>`;
}

/** One upload per identity document still OPEN; `capture` lets a phone take the photo. */
function documentForms(model: OnboardingPageModel): SafeHtml | string {
  if (model.onboarding === 'COMPLETE' || model.progress === 'closed') return '';
  const items = model.documents.map((doc) => {
    const id = `d-${doc.fieldId}`;
    if (doc.status === 'SUBMITTED')
      return html`<p data-document="${doc.fieldId}">${label(doc.fieldId)}: <span class="status">${M.provided}</span></p>`;
    return html`<form class="doc-form" data-document="${doc.fieldId}" method="post" action="${ASSET_PATHS.noScript}" novalidate>
<fieldset><legend>${label(doc.fieldId)}</legend>
${doc.error ? html`<p class="error">${fill(M.fieldError, { error: doc.error })}</p>` : ''}
<div class="field"><label for="${id}-type">${M.documentType}</label>
<select id="${id}-type" required>${doc.docTypes.map((type) => html`<option value="${type}">${Object.hasOwn(M.docTypes, type) ? M.docTypes[type as keyof typeof M.docTypes] : type}</option>`)}</select></div>
<div class="field"><label for="${id}-file">${M.documentFile}</label>
<input id="${id}-file" type="file" accept="${ACCEPTED_MEDIA_TYPES.join(',')}" capture="environment" required
 data-max-bytes="${MAX_DOCUMENT_BYTES}" aria-describedby="${id}-file-hint ${id}-file-error">
<p class="hint" id="${id}-file-hint">${M.documentHint}</p>${errorSlot(`${id}-file`)}</div>
<button type="submit" id="${id}-upload">${fill(M.documentUpload, { field: label(doc.fieldId) })}</button>
</fieldset>
</form>`;
  });
  return html`<section aria-labelledby="documents-heading">
<h2 id="documents-heading">${M.documentsHeading}</h2>
${items}
</section>`;
}

export function onboardingPageHtml(model: OnboardingPageModel, token: string): string {
  const greeting = model.firstName
    ? html`<p id="greeting">${fillHtml(M.greeting, { name: html`<span id="first-name">${model.firstName}</span>` })}</p>`
    : '';
  let action: SafeHtml;
  if (model.progress === 'closed') {
    action = html`<p id="closed">${M.closed}</p>`;
  } else if (model.onboarding === 'OPEN') {
    const button = model.sandbox ? M.runSandboxCheck : M.submitCheck;
    action = html`<section aria-labelledby="check-heading"><h2 id="check-heading">${M.checkHeading}</h2>
<p>${model.sandbox ? M.sandboxNote : M.reviewNote}</p><form method="post" action="/onboarding/${token}">
<button type="submit" id="submit-check">${button}</button>
</form></section>`;
  } else {
    action = html`<p id="outcome" role="status" data-progress="${model.progress}">${outcomeText(model)}</p>`;
  }
  return onboardingPage(
    M.documentTitle,
    html`<main id="onboarding" data-token="${token}" data-needed-text="${M.stillNeeded}" data-choose-text="${M.documentSelect}">
<h1>${M.title}</h1>
${greeting}
<div id="errors" role="alert" tabindex="-1" hidden></div>
<p>${M.intro}</p>
${requirementList(model)}
${scopeList(model)}
${model.progress === 'closed' ? '' : detailsForm(model)}
${documentForms(model)}
${action}
</main>`,
  );
}

export function errorPageHtml(status: number, message: string): string {
  const title = status === 410 ? M.linkExpiredTitle : status === 404 ? M.linkInvalidTitle : M.errorTitle;
  return onboardingPage(
    title,
    html`<main id="onboarding"><h1>${title}</h1><p id="error-message">${message}</p></main>`,
  );
}

function onboardingPage(title: string, main: SafeHtml): string {
  return hostedPage({ title, script: ASSET_PATHS.onboardingJs, main, footer: true });
}
