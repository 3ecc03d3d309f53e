import { SUPPORTED_COUNTRIES } from '../limits/countries.ts';
import type { Quote } from '../pricing/quote.ts';
import { html, type SafeHtml } from '../web/html.ts';
import { ASSET_PATHS } from './assets.ts';
import { displayAmount, type FieldName, reservationText } from './fields.ts';
import type { FormModel, ProgressModel } from './service.ts';

/**
 * The hosted checkout's HTML. Server-rendered and escaped by the `html` tag; behaviour comes from
 * our own script file (no inline script or style: the CSP allows neither), which reads what it
 * needs from data- attributes.
 */
function layout(title: string, main: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${ASSET_PATHS.css}">
<link rel="icon" href="${ASSET_PATHS.icon}" type="image/svg+xml">
<script src="${ASSET_PATHS.js}" defer></script>
</head>
<body>
${main}
</body>
</html>`.value;
}

const LABELS: Record<FieldName, string> = {
  amount: 'Amount',
  sourceCurrency: 'Pay with',
  destCurrency: 'Buy',
  dest: 'Wallet address',
  firstName: 'First name',
  lastName: 'Last name',
  email: 'E-mail',
  phone: 'Phone (with country code, e.g. +14155550100)',
  street1: 'Street address',
  city: 'City',
  state: 'State / province (code)',
  postalCode: 'Postal code',
  country: 'Country',
};

const AUTOCOMPLETE: Partial<Record<FieldName, string>> = {
  firstName: 'given-name',
  lastName: 'family-name',
  email: 'email',
  phone: 'tel',
  street1: 'address-line1',
  city: 'address-level2',
  state: 'address-level1',
  postalCode: 'postal-code',
  country: 'country',
};

const INPUT_TYPE: Partial<Record<FieldName, string>> = { email: 'email', phone: 'tel' };

function hint(id: string, text: string): SafeHtml {
  return html`<p class="hint" id="${id}-hint">${text}</p>`;
}

function errorSlot(id: string): SafeHtml {
  return html`<p class="field-error" id="${id}-error" hidden></p>`;
}

/** One labelled field: read-only (and said so) when the merchant locked it. */
function textField(model: FormModel, field: FieldName, extra: { inputmode?: string } = {}): SafeHtml {
  const id = `f-${field}`;
  const value = reservationText(model.reservation.view, field);
  const locked = model.locked.has(field);
  const describedBy = `${id}-error${locked ? ` ${id}-hint` : ''}`;
  return html`<div class="field">
<label for="${id}">${LABELS[field]}</label>
<input id="${id}" name="${field}" type="${INPUT_TYPE[field] ?? 'text'}" value="${value}"
 autocomplete="${AUTOCOMPLETE[field] ?? 'off'}" ${extra.inputmode ? html`inputmode="${extra.inputmode}"` : ''}
 required aria-describedby="${describedBy}"${locked ? html` readonly aria-readonly="true"` : ''}>
${locked ? hint(id, 'Set by the merchant.') : ''}${errorSlot(id)}
</div>`;
}

function selectField(model: FormModel, field: FieldName, options: { value: string; label: string }[]) {
  const id = `f-${field}`;
  const value = reservationText(model.reservation.view, field);
  if (model.locked.has(field)) return textField(model, field);
  const choices =
    options.some((option) => option.value === value) || value === ''
      ? options
      : [{ value, label: value }, ...options];
  return html`<div class="field">
<label for="${id}">${LABELS[field]}</label>
<select id="${id}" name="${field}" required aria-describedby="${id}-error"
 autocomplete="${AUTOCOMPLETE[field] ?? 'off'}">
${value === '' ? html`<option value="">Choose…</option>` : ''}
${choices.map((option) => html`<option value="${option.value}"${option.value === value ? html` selected` : ''}>${option.label}</option>`)}
</select>
${errorSlot(id)}
</div>`;
}

const asOptions = (codes: string[]) => codes.map((code) => ({ value: code, label: code }));

/** The billing countries by name, as GET /v3/widget/supportedCountries lists them; built once. */
const COUNTRY_OPTIONS = SUPPORTED_COUNTRIES.map(({ code, name }) => ({ value: code, label: name }));

/** The locked quote (or an empty one the script fills in once the buyer picked an amount). */
function summary(model: FormModel): SafeHtml {
  const quote = model.quote;
  const view = model.reservation.view;
  const heading = quote ? `Buy ${quote.destCurrency}` : `Buy ${view.destCurrency ?? 'crypto'}`;
  return html`<section id="summary" aria-labelledby="summary-heading">
<h2 id="summary-heading">${heading}</h2>
<dl id="quote" aria-live="polite"${quote ? '' : html` hidden`}>
<div><dt>You pay (fees included)</dt><dd id="quote-source-amount">${quote ? money(displayAmount(quote.sourceAmount, quote.sourceCurrency), quote.sourceCurrency) : ''}</dd></div>
<div><dt>Fees</dt><dd id="quote-fees">${quote ? feesText(quote) : ''}</dd></div>
<div><dt>You receive</dt><dd id="quote-dest-amount">${quote ? money(displayAmount(quote.destAmount, quote.destCurrency), quote.destCurrency) : ''}</dd></div>
<div><dt>Rate</dt><dd id="quote-rate">${quote ? rateText(quote) : ''}</dd></div>
${quote && view.dest ? html`<div><dt>To wallet</dt><dd id="quote-dest">${view.dest}</dd></div>` : ''}
</dl>
<p id="expiry">${quote ? 'Price held for ' : 'Link valid for '}<span id="countdown">${minutes(model.expiresInMs)}</span>.</p>
</section>`;
}

const money = (amount: string, currency: string) => `${amount} ${currency}`;

function feesText(quote: Quote): string {
  return Object.entries(quote.fees)
    .map(([currency, amount]) => money(displayAmount(amount, currency), currency))
    .join(' + ');
}

function rateText(quote: Quote): string {
  return `1 ${quote.sourceCurrency} = ${quote.exchangeRate.toFixed()} ${quote.destCurrency}`;
}

function minutes(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** What the buyer picks on an unlocked reservation; locked values shown read-only. */
function amountFields(model: FormModel): SafeHtml {
  if (model.quote) return html``;
  return html`<fieldset id="amount-fields">
<legend>Amount</legend>
${textField(model, 'amount', { inputmode: 'decimal' })}
${selectField(model, 'sourceCurrency', asOptions(model.sourceCurrencies))}
${selectField(model, 'destCurrency', asOptions(model.destCurrencies))}
${textField(model, 'dest')}
<button type="button" id="get-quote" class="secondary">Show price</button>
</fieldset>`;
}

/**
 * Card inputs carry no `name`: a form submitted without our script (or before it loads) sends
 * none of them, so a card number can never end up in a URL or a request we did not build.
 */
function cardFields(): SafeHtml {
  return html`<fieldset id="card-fields">
<legend>Debit card</legend>
<div class="field">
<label for="f-card-number">Card number</label>
<input id="f-card-number" type="text" inputmode="numeric" autocomplete="cc-number" required
 maxlength="23" aria-describedby="f-card-number-error">
${errorSlot('f-card-number')}
</div>
<div class="row">
<div class="field">
<label for="f-card-expiry">Expiry (MM/YYYY)</label>
<input id="f-card-expiry" type="text" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YYYY" required
 maxlength="7" aria-describedby="f-card-expiry-error">
${errorSlot('f-card-expiry')}
</div>
<div class="field">
<label for="f-card-cvv">CVV (3 digits)</label>
<input id="f-card-cvv" type="text" inputmode="numeric" autocomplete="cc-csc" required maxlength="3"
 aria-describedby="f-card-cvv-error">
${errorSlot('f-card-cvv')}
</div>
</div>
</fieldset>`;
}

function billingFields(model: FormModel): SafeHtml {
  return html`<fieldset id="billing-fields">
<legend>Billing details</legend>
<div class="row">${textField(model, 'firstName')}${textField(model, 'lastName')}</div>
${textField(model, 'email')}
${textField(model, 'phone')}
${textField(model, 'street1')}
${textField(model, 'city')}
<div class="row">${textField(model, 'state')}${textField(model, 'postalCode')}</div>
${selectField(model, 'country', COUNTRY_OPTIONS)}
</fieldset>`;
}

function codesSection(): SafeHtml {
  return html`<section id="codes" aria-labelledby="codes-heading" hidden>
<h2 id="codes-heading" tabindex="-1">Confirm it is you</h2>
<form id="codes-form" method="post" action="${ASSET_PATHS.noScript}" novalidate>
<div class="field" id="sms-field" hidden>
<label for="f-sms">Code sent to your phone by SMS (6 digits)</label>
<input id="f-sms" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6"
 aria-describedby="f-sms-error">
${errorSlot('f-sms')}
</div>
<div class="field" id="card2fa-field" hidden>
<label for="f-card2fa">Code on your card statement (6 digits)</label>
<input id="f-card2fa" type="text" inputmode="numeric" autocomplete="off" maxlength="6"
 aria-describedby="f-card2fa-error">
${errorSlot('f-card2fa')}
</div>
<button type="submit" id="submit-codes">Confirm</button>
</form>
</section>`;
}

function progressSection(hidden: boolean): SafeHtml {
  return html`<section id="progress" aria-labelledby="progress-heading"${hidden ? html` hidden` : ''}>
<h2 id="progress-heading" tabindex="-1">Your purchase</h2>
<p id="progress-status" role="status" aria-live="polite">${hidden ? '' : 'Checking your order…'}</p>
<p id="progress-detail"></p>
</section>`;
}

const ERRORS = html`<div id="errors" role="alert" tabindex="-1" hidden></div>`;

export function checkoutPageHtml(model: FormModel): string {
  const view = model.reservation.view;
  return layout(
    'Checkout',
    html`<main id="checkout" data-mode="form" data-reservation="${view.reservation}"
 data-account-id="${model.accountId}" data-expires-in-ms="${model.expiresInMs}"
 data-quote-locked="${model.quote ? 'true' : 'false'}"
 data-amount="${model.quote ? model.quote.sourceAmount.toFixed() : ''}"
 data-source-currency="${model.quote?.sourceCurrency ?? ''}" data-dest-currency="${model.quote?.destCurrency ?? ''}"
 data-dest="${view.dest ?? ''}" data-reference-id="${view.referenceId ?? ''}">
<h1 id="title" tabindex="-1">Checkout</h1>
${ERRORS}
${summary(model)}
<noscript><p class="error">This checkout needs JavaScript turned on.</p></noscript>
<form id="checkout-form" method="post" action="${ASSET_PATHS.noScript}" novalidate>
${amountFields(model)}
${cardFields()}
${billingFields(model)}
<button type="submit" id="pay">${model.quote ? `Pay ${money(displayAmount(model.quote.sourceAmount, model.quote.sourceCurrency), model.quote.sourceCurrency)}` : 'Pay'}</button>
</form>
${model.redirects.failure ? html`<p id="cancel"><a href="${model.redirects.failure}">Cancel and return to the merchant</a></p>` : ''}
${codesSection()}
${progressSection(true)}
</main>`,
  );
}

/** Back from 3-D Secure: the page follows the order until it ends. */
export function progressPageHtml(model: ProgressModel): string {
  return layout(
    'Checkout',
    html`<main id="checkout" data-mode="progress" data-reservation="${model.reservation}"
 data-account-id="${model.accountId}" data-order-id="${model.orderId}" data-order-token="${model.orderToken}">
<h1 id="title" tabindex="-1">Checkout</h1>
${ERRORS}
<noscript><p class="error">This checkout needs JavaScript turned on.</p></noscript>
${codesSection()}
${progressSection(false)}
</main>`,
  );
}

export function checkoutErrorHtml(status: number, message: string): string {
  const title =
    status === 410
      ? 'Checkout link no longer valid'
      : status === 404
        ? 'Checkout link not valid'
        : status >= 500
          ? 'Something went wrong'
          : 'Checkout link not valid';
  return layout(
    title,
    html`<main id="checkout"><h1>${title}</h1><p id="error-message">${message}</p></main>`,
  );
}

export function noScriptHtml(): string {
  return layout(
    'Checkout needs JavaScript',
    html`<main id="checkout"><h1>Checkout needs JavaScript</h1>
<p id="error-message">Nothing was charged. Please turn JavaScript on, go back and try again.</p></main>`,
  );
}
