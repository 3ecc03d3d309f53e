import { SUPPORTED_COUNTRIES } from '../limits/index.ts';
import type { Quote } from '../pricing/index.ts';
import { ASSET_PATHS, fill, fillHtml, hostedPage, html, messages, type SafeHtml } from '../web/index.ts';
import type { Branding } from './branding.ts';
import { type FieldName, reservationText } from './fields.ts';
import { displayAmount, feeBreakdown, feeLineText, moneyText } from './format.ts';
import type { EndedModel, FormModel, ProgressModel } from './service.ts';

/**
 * The hosted checkout's HTML. Server-rendered and escaped by the `html` tag; every word comes
 * from the message catalogue (web/messages); behaviour comes from our own script file (no inline
 * script or style: the CSP allows neither), which reads what it needs from data- attributes.
 * The partner's accent colour arrives as a stylesheet of its own (web/assets.ts themePath).
 */
const M = messages.checkout;

/** The partner as buyers know it, or a neutral "the merchant" where it set no name. */
export const partnerLabel = (branding: Branding | null) => branding?.name ?? M.theMerchant;

function layout(title: string, branding: Branding | null, main: SafeHtml): string {
  return hostedPage({
    title,
    script: ASSET_PATHS.js,
    accentColor: branding?.accentColor ?? null,
    header: brandHeader(branding),
    main,
    footer: true,
  });
}

function brandHeader(branding: Branding | null): SafeHtml {
  if (!branding || (!branding.name && !branding.logoUrl)) return html``;
  const name = branding.name ?? '';
  return html`<header class="brand">
${branding.logoUrl ? html`<img class="brand-logo" src="${branding.logoUrl}" alt="${name ? fill(M.logoAlt, { partner: name }) : ''}">` : ''}
${name ? html`<p class="brand-name" id="partner-name">${name}</p>` : ''}
</header>`;
}

const pageTitle = (branding: Branding | null) =>
  branding?.name ? fill(M.titleWithPartner, { partner: branding.name }) : M.title;

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
<label for="${id}">${M.fields[field]}</label>
<input id="${id}" name="${field}" type="${INPUT_TYPE[field] ?? 'text'}" value="${value}"
 autocomplete="${AUTOCOMPLETE[field] ?? 'off'}" ${extra.inputmode ? html`inputmode="${extra.inputmode}"` : ''}
 required aria-describedby="${describedBy}"${locked ? html` readonly aria-readonly="true"` : ''}>
${locked ? hint(id, M.lockedHint) : ''}${errorSlot(id)}
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
<label for="${id}">${M.fields[field]}</label>
<select id="${id}" name="${field}" required aria-describedby="${id}-error"
 autocomplete="${AUTOCOMPLETE[field] ?? 'off'}">
${value === '' ? html`<option value="">${M.choose}</option>` : ''}
${choices.map((option) => html`<option value="${option.value}"${option.value === value ? html` selected` : ''}>${option.label}</option>`)}
</select>
${errorSlot(id)}
</div>`;
}

const asOptions = (codes: string[]) => codes.map((code) => ({ value: code, label: code }));

/** The billing countries by name, as GET /v3/widget/supportedCountries lists them; built once. */
const COUNTRY_OPTIONS = SUPPORTED_COUNTRIES.map(({ code, name }) => ({ value: code, label: name }));

function row(id: string, term: string, value: SafeHtml | string, extra?: SafeHtml): SafeHtml {
  return html`<div><dt>${term}</dt><dd id="${id}">${value}${extra ?? ''}</dd></div>`;
}

/**
 * What the charge is made of: purchase, processing fee, network fee and the total, which add up
 * exactly (format.ts feeBreakdown). Empty until the script has the price of an unlocked amount.
 */
function breakdownRows(quote: Quote | null): SafeHtml {
  const breakdown = quote ? feeBreakdown(quote) : null;
  const line = (key: 'purchase' | 'processingFee' | 'networkFee') => {
    const found = breakdown?.lines.find((item) => item.key === key);
    return found && breakdown ? feeLineText(found.amount, breakdown.currency) : '';
  };
  const native = breakdown?.networkFeeNative
    ? fill(M.networkFeeNative, {
        amount: moneyText(breakdown.networkFeeNative.amount, breakdown.networkFeeNative.currency),
      })
    : '';
  return html`<dl id="breakdown">
${row('bd-purchase', M.purchase, line('purchase'))}
${row('bd-processingFee', M.processingFee, line('processingFee'))}
${row('bd-networkFee', M.networkFee, line('networkFee'), html`<span class="sub" id="bd-networkFee-native">${native}</span>`)}
<div class="total"><dt>${M.total}</dt><dd id="quote-source-amount">${breakdown ? feeLineText(breakdown.total, breakdown.currency) : ''}</dd></div>
</dl>`;
}

/** The locked quote (or an empty one the script fills in once the buyer picked an amount). */
function summary(model: FormModel): SafeHtml {
  const quote = model.quote;
  const view = model.reservation.view;
  const currency = quote?.destCurrency ?? view.destCurrency;
  const heading = currency ? fill(M.buy, { currency }) : M.buyCrypto;
  return html`<section id="summary" aria-labelledby="summary-heading">
<h2 id="summary-heading">${heading}</h2>
<div id="quote" aria-live="polite"${quote ? '' : html` hidden`}>
<dl id="receive">
${row('quote-dest-amount', M.youReceive, quote ? moneyText(quote.destAmount, quote.destCurrency) : '')}
${row('quote-rate', M.rate, quote ? rateText(quote) : '')}
${quote && view.dest ? row('quote-dest', M.toWallet, view.dest) : ''}
</dl>
${breakdownRows(quote)}
</div>
<p id="expiry">${fillHtml(quote ? M.priceHeld : M.linkValid, { time: html`<span id="countdown">${minutes(model.expiresInMs)}</span>` })}</p>
</section>`;
}

function rateText(quote: Quote): string {
  return fill(M.rateText, {
    source: quote.sourceCurrency,
    rate: displayAmount(quote.exchangeRate, quote.destCurrency),
    dest: quote.destCurrency,
  });
}

function minutes(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** What the buyer picks on an unlocked reservation; locked values shown read-only. */
function amountFields(model: FormModel): SafeHtml {
  if (model.quote) return html``;
  return html`<fieldset id="amount-fields">
<legend>${M.amountLegend}</legend>
${textField(model, 'amount', { inputmode: 'decimal' })}
${selectField(model, 'sourceCurrency', asOptions(model.sourceCurrencies))}
${selectField(model, 'destCurrency', asOptions(model.destCurrencies))}
${textField(model, 'dest')}
<button type="button" id="get-quote" class="secondary">${M.showPrice}</button>
</fieldset>`;
}

/**
 * Card inputs carry no `name`: a form submitted without our script (or before it loads) sends
 * none of them, so a card number can never end up in a URL or a request we did not build.
 */
function cardFields(): SafeHtml {
  return html`<fieldset id="card-fields">
<legend>${M.cardLegend}</legend>
<div class="field">
<label for="f-card-number">${M.cardNumber}</label>
<div class="with-badge">
<input id="f-card-number" type="text" inputmode="numeric" autocomplete="cc-number" required
 maxlength="23" aria-describedby="f-card-number-brand f-card-number-error">
<span class="badge" id="f-card-number-brand" aria-live="polite">${M.cardBrandNone}</span>
</div>
${errorSlot('f-card-number')}
</div>
<div class="row">
<div class="field">
<label for="f-card-expiry">${M.expiry}</label>
<input id="f-card-expiry" type="text" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" required
 maxlength="9" aria-describedby="f-card-expiry-error">
${errorSlot('f-card-expiry')}
</div>
<div class="field">
<label for="f-card-cvv">${M.cvv}</label>
<input id="f-card-cvv" type="text" inputmode="numeric" autocomplete="cc-csc" required maxlength="3"
 aria-describedby="f-card-cvv-error">
${errorSlot('f-card-cvv')}
</div>
</div>
</fieldset>`;
}

function billingFields(model: FormModel): SafeHtml {
  return html`<fieldset id="billing-fields">
<legend>${M.billingLegend}</legend>
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
<h2 id="codes-heading" tabindex="-1">${M.codesHeading}</h2>
<form id="codes-form" method="post" action="${ASSET_PATHS.noScript}" novalidate>
<div class="field" id="sms-field" hidden>
<label for="f-sms">${M.smsCode}</label>
<input id="f-sms" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6"
 aria-describedby="f-sms-error">
${errorSlot('f-sms')}
</div>
<div class="field" id="card2fa-field" hidden>
<label for="f-card2fa">${M.card2faCode}</label>
<input id="f-card2fa" type="text" inputmode="numeric" autocomplete="off" maxlength="6"
 aria-describedby="f-card2fa-error">
${errorSlot('f-card2fa')}
</div>
<button type="submit" id="submit-codes">${M.confirm}</button>
</form>
</section>`;
}

const S = messages.checkoutScript;
const STEPS = [S.stepCheck, S.stepConfirm, S.stepSend, S.stepDone];

/** The order's way through, as steps and a bar; the script marks the current one. */
function progressSection(hidden: boolean): SafeHtml {
  return html`<section id="progress" aria-labelledby="progress-heading"${hidden ? html` hidden` : ''}>
<h2 id="progress-heading" tabindex="-1">${M.progressHeading}</h2>
<progress id="progress-bar" max="${STEPS.length}" value="1" aria-labelledby="progress-step"></progress>
<p id="progress-step" class="hint">${fill(S.stepOf, { step: 1, total: STEPS.length, name: STEPS[0]! })}</p>
<ol id="steps">${STEPS.map((name, index) => html`<li data-step="${index + 1}"${index === 0 ? html` aria-current="step"` : ''}>${name}</li>`)}</ol>
<p id="progress-status" role="status" aria-live="polite">${hidden ? '' : S.checking}</p>
<p id="progress-detail"></p>
</section>`;
}

/** The receipt the script fills in once the order is complete. */
function receiptSection(): SafeHtml {
  return html`<section id="receipt" aria-labelledby="receipt-heading" hidden>
<h2 id="receipt-heading" tabindex="-1">${M.receiptHeading}</h2>
<dl id="receipt-list">
${row('r-order', M.orderId, '')}
${row('r-paid', M.paid, '')}
${row('r-fees', M.fees, '')}
${row('r-received', M.received, '')}
${row('r-dest', M.destination, '')}
<div id="r-tx-row" hidden><dt>${M.transaction}</dt><dd id="r-tx"></dd></div>
</dl>
</section>`;
}

/** Where the buyer goes on from an ended order: the partner's page, when it gave one. */
function nextSection(): SafeHtml {
  return html`<p id="next" hidden><a id="back" class="button" href="#"></a></p>`;
}

const ERRORS = html`<div id="errors" role="alert" tabindex="-1" hidden></div>`;
const NO_SCRIPT = html`<noscript><p class="error">${messages.common.jsNeeded}</p></noscript>`;

export function checkoutPageHtml(model: FormModel): string {
  const view = model.reservation.view;
  const quote = model.quote;
  const payLabel = quote
    ? fill(M.payAmount, { amount: moneyText(quote.sourceAmount, quote.sourceCurrency) })
    : M.pay;
  return layout(
    pageTitle(model.branding),
    model.branding,
    html`<main id="checkout" data-mode="form" data-reservation="${view.reservation}"
 data-account-id="${model.accountId}" data-expires-in-ms="${model.expiresInMs}"
 data-quote-locked="${quote ? 'true' : 'false'}"
 data-amount="${quote ? quote.sourceAmount.toFixed() : ''}"
 data-source-currency="${quote?.sourceCurrency ?? ''}" data-dest-currency="${quote?.destCurrency ?? ''}"
 data-dest="${view.dest ?? ''}" data-reference-id="${view.referenceId ?? ''}"
 data-partner="${partnerLabel(model.branding)}" data-failure-url="${model.redirects.failure ?? ''}">
<h1 id="title" tabindex="-1">${pageTitle(model.branding)}</h1>
${ERRORS}
${summary(model)}
${NO_SCRIPT}
<form id="checkout-form" method="post" action="${ASSET_PATHS.noScript}" novalidate>
${amountFields(model)}
${cardFields()}
${billingFields(model)}
<button type="submit" id="pay">${payLabel}</button>
</form>
${model.redirects.failure ? html`<p id="cancel"><a href="${model.redirects.failure}">${fill(M.cancel, { partner: partnerLabel(model.branding) })}</a></p>` : ''}
${codesSection()}
${progressSection(true)}
${receiptSection()}
${nextSection()}
</main>`,
  );
}

/** Back from 3-D Secure: the page follows the order until it ends. */
export function progressPageHtml(model: ProgressModel): string {
  return layout(
    pageTitle(model.branding),
    model.branding,
    html`<main id="checkout" data-mode="progress" data-reservation="${model.reservation}"
 data-account-id="${model.accountId}" data-order-id="${model.orderId}" data-order-token="${model.orderToken}"
 data-partner="${partnerLabel(model.branding)}">
<h1 id="title" tabindex="-1">${pageTitle(model.branding)}</h1>
${ERRORS}
${NO_SCRIPT}
${codesSection()}
${progressSection(false)}
${receiptSection()}
${nextSection()}
</main>`,
  );
}

/** A link that cannot be used (expired, used, spent by declines), with the way back to the partner. */
export function endedPageHtml(model: EndedModel): string {
  const E = M.ended;
  const partner = partnerLabel(model.branding);
  const [title, text] =
    model.reason === 'expired'
      ? [E.expiredTitle, E.expired]
      : model.reason === 'spent'
        ? [E.spentTitle, E.spent]
        : [E.usedTitle, E.used];
  const where = model.returnUrl ? partner : E.siteYouCameFrom;
  return layout(
    title,
    model.branding,
    html`<main id="checkout" data-ended="${model.reason}">
<h1>${title}</h1>
<p id="error-message">${fill(text, { partner: where })}</p>
${model.returnUrl ? html`<p id="next"><a id="back" class="button" href="${model.returnUrl}">${fill(E.startAgain, { partner })}</a></p>` : ''}
</main>`,
  );
}

export type CheckoutErrorKind = 'invalid' | 'unknownOrder' | 'altered' | 'incomplete' | 'serverError';

export function checkoutErrorHtml(kind: CheckoutErrorKind, reference?: string): string {
  const E = M.ended;
  const pages: Record<CheckoutErrorKind, [string, string]> = {
    invalid: [E.invalidTitle, E.invalid],
    unknownOrder: [E.unknownOrderTitle, E.unknownOrder],
    altered: [E.alteredTitle, E.altered],
    incomplete: [E.incompleteTitle, E.incomplete],
    serverError: [E.serverErrorTitle, fill(messages.common.serverError, { reference: reference ?? '' })],
  };
  const [title, text] = pages[kind];
  return layout(
    title,
    null,
    html`<main id="checkout"><h1>${title}</h1><p id="error-message">${text}</p></main>`,
  );
}

export function noScriptHtml(): string {
  const E = M.ended;
  return layout(
    E.noScriptTitle,
    null,
    html`<main id="checkout"><h1>${E.noScriptTitle}</h1>
<p id="error-message">${E.noScript}</p></main>`,
  );
}
