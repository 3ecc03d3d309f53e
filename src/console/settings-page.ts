import type { FeeScheduleJson } from '../pricing/index.ts';
import { html } from '../web/index.ts';
import type { WebSession } from '../web/sessions/index.ts';
import { changeForm, textInput } from './forms.ts';
import { noticeOf, table, text, when } from './list-kit.ts';

/** The service-wide settings the operator API sets: fees, reference prices, the sandbox clock. */

export interface SettingsModel {
  fees: FeeScheduleJson;
  rates: { source: string; prices: Record<string, { USD: string }> };
  clock: { sandbox: boolean; offsetSeconds: number; now: number };
}

const FEE_PARTS = [
  ['percent', 'Percent'],
  ['flat', 'Flat'],
  ['minOrder', 'Minimum order'],
  ['maxOrder', 'Maximum order'],
] as const;

/** Ids from names the service allows (lower-case words, currency codes), safe in an id. */
const idOf = (...parts: string[]) => parts.join('-').replace(/[^\w-]/g, '_');

export function settingsHtml(
  session: WebSession,
  model: SettingsModel,
  shown: { ok?: string | undefined; error?: string | undefined },
) {
  return html`<h1>Fees, rates and the sandbox clock</h1>
${noticeOf('ok', shown.ok)}${noticeOf('error', shown.error)}
${feesSection(session, model.fees)}
${ratesSection(session, model.rates)}
${clockSection(session, model.clock)}`;
}

function feesSection(session: WebSession, fees: FeeScheduleJson) {
  const rows = Object.entries(fees.methods).flatMap(([method, rules]) =>
    Object.entries(rules).map(([code, rule]) => [
      text(method),
      text(code),
      ...FEE_PARTS.map(([part]) =>
        session.role === 'admin'
          ? html`<label class="visually-hidden" for="${idOf('fee', method, code, part)}">${`${method} ${code} ${part}`}</label><input id="${idOf('fee', method, code, part)}" name="${`fee.${method}.${code}.${part}`}" type="text" inputmode="decimal" value="${rule[part]}" size="8">`
          : text(rule[part]),
      ),
    ]),
  );
  const network = Object.entries(fees.networkFees).map(([code, fee]) => [
    text(code),
    session.role === 'admin'
      ? html`<label class="visually-hidden" for="${idOf('network', code)}">${`Network fee ${code}`}</label><input id="${idOf('network', code)}" name="${`network.${code}`}" type="text" inputmode="decimal" value="${fee}" size="12">`
      : text(fee),
  ]);
  const tables = html`${table('Card fees per method and source currency', ['Method', 'Currency', ...FEE_PARTS.map(([, label]) => label)], rows, 'No method is sold.')}
${table('Network fee per destination currency', ['Currency', 'Fee'], network, 'No currency is sold.')}`;
  return html`<section aria-labelledby="fees-title">
<h2 id="fees-title">Fee schedule</h2>
<p class="hint">Percent in [0, 50); amounts within the currency’s decimals; a change applies to the next quote.</p>
${session.role === 'admin' ? changeForm(session, '/console/settings/fees', tables, 'Save the fee schedule') : tables}
</section>`;
}

function ratesSection(session: WebSession, rates: SettingsModel['rates']) {
  const rows = Object.entries(rates.prices).map(([code, price]) => [text(code), text(price.USD)]);
  const inputs = Object.entries(rates.prices).map(([code, price]) =>
    textInput(idOf('rate', code), `rate.${code}`, `${code} in USD`, price.USD, { inputmode: 'decimal' }),
  );
  return html`<section aria-labelledby="rates-title">
<h2 id="rates-title">Reference prices</h2>
<p>Quotes use the <strong>${rates.source}</strong> source.</p>
${
  session.role === 'admin'
    ? changeForm(
        session,
        '/console/settings/rates',
        html`<div class="field-grid">${inputs}</div>`,
        'Save the prices',
      )
    : table('Reference prices in USD', ['Currency', 'USD'], rows, 'No reference price is set.')
}
</section>`;
}

function clockSection(session: WebSession, clock: SettingsModel['clock']) {
  const state = html`<dl class="facts"><dt>Service time</dt><dd>${when(clock.now)}</dd>
<dt>Ahead of real time</dt><dd>${clock.offsetSeconds} seconds</dd></dl>`;
  if (!clock.sandbox) {
    return html`<section aria-labelledby="clock-title"><h2 id="clock-title">Clock</h2>${state}
<p>Production runs on real time; only the sandbox clock can be moved.</p></section>`;
  }
  return html`<section aria-labelledby="clock-title">
<h2 id="clock-title">Sandbox clock</h2>${state}
${changeForm(
  session,
  '/console/settings/clock',
  textInput('clock-advance', 'advanceSeconds', 'Seconds to move forward', undefined, {
    inputmode: 'numeric',
    hint: '3600 is an hour, 86400 a day; the clock never goes back.',
  }),
  'Move the clock forward',
)}
</section>`;
}
