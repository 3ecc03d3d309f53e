import type { PartnerRow } from '../identity/index.ts';
import { html, type SafeHtml } from '../web/index.ts';
import type { WebSession } from '../web/sessions/index.ts';
import { changeForm, textInput } from './forms.ts';
import { nextPageLink, noticeOf, table, text, when } from './list-kit.ts';

/** The partners list and one partner's page: what the operator API's account routes show and change. */

export function partnersListHtml(rows: PartnerRow[], search: string | undefined, next: string | undefined) {
  const cells = rows.map((row) => [
    html`<a href="${`/console/partners/${encodeURIComponent(row.id)}`}">${row.id}</a>`,
    text(row.name),
    text(row.status),
    text(row.country),
    text(row.users_api_enabled ? 'on' : 'off'),
    when(row.created_at),
  ]);
  return html`<h1>Partners</h1>
<form method="get" action="/console/partners" class="form filters" role="search">
<div class="field"><label for="partner-search">Account id or name</label>
<input id="partner-search" name="q" type="search" value="${search ?? ''}" autocomplete="off"></div>
<button class="button" type="submit">Search</button>
</form>
${table('Partners, newest first', ['Account', 'Name', 'Status', 'Country', 'Users API', 'Created'], cells, 'No partner matches.')}
${nextPageLink('/console/partners', { q: search }, next)}
<p><a href="/console/settings">Fees, rates and the sandbox clock</a></p>`;
}

type LimitTable = {
  daily: { toFixed(): string };
  weekly: { toFixed(): string };
  yearly: { toFixed(): string };
};

export interface PartnerDetail {
  account: {
    id: string;
    name: string | null;
    status: string;
    country: string;
    usersApi: boolean;
    createdAt: Date;
  };
  keys: {
    apiKey: string;
    type: string;
    desc: string;
    ipWhitelist: string[];
    origin: string;
    createdAt: number;
  }[];
  limits: { STANDARD: LimitTable | null; DEBIT_CARD_L2: LimitTable | null };
  branding: { name: string | null; accentColor: string | null; logoUrl: string | null };
}

/** What a partner page says above its sections: a change done, a refusal, or a new key's secret. */
export interface PartnerPageNotice {
  ok?: string | undefined;
  error?: string | undefined;
  createdKey?: { apiKey: string; secretKey: string } | undefined;
}

export function partnerDetailHtml(session: WebSession, detail: PartnerDetail, shown: PartnerPageNotice) {
  const { account } = detail;
  const base = `/console/partners/${encodeURIComponent(account.id)}`;
  return html`<p><a href="/console/partners">All partners</a></p>
<h1>${account.name ?? account.id}</h1>
${noticeOf('ok', shown.ok)}${noticeOf('error', shown.error)}${createdKeyHtml(shown.createdKey)}
<dl class="facts">
<dt>Account</dt><dd>${account.id}</dd>
<dt>Status</dt><dd>${account.status}</dd>
<dt>Country</dt><dd>${account.country}</dd>
<dt>Created</dt><dd>${when(account.createdAt)}</dd>
</dl>
${usersApiSection(session, base, account.usersApi)}
${limitsSection(session, base, detail.limits)}
${keysSection(session, base, detail.keys)}
${brandingSection(detail.branding)}
<p><a href="/console/settings">Fees, rates and the sandbox clock</a> apply to every partner.</p>`;
}

function createdKeyHtml(created: PartnerPageNotice['createdKey']): SafeHtml {
  if (!created) return html``;
  return html`<section class="secret-once" aria-labelledby="new-key-title">
<h2 id="new-key-title">New API key</h2>
<p>Hand the secret to the partner now: it is shown on this page only, and never again.</p>
<dl class="facts"><dt>API key</dt><dd><code id="new-api-key">${created.apiKey}</code></dd>
<dt>Secret key</dt><dd><code id="new-secret-key">${created.secretKey}</code></dd></dl>
</section>`;
}

function usersApiSection(session: WebSession, base: string, enabled: boolean) {
  return html`<section aria-labelledby="users-api-title">
<h2 id="users-api-title">Users API</h2>
<p>The Users API is <strong>${enabled ? 'on' : 'off'}</strong> for this partner.</p>
${changeForm(
  session,
  `${base}/users-api`,
  html`<input type="hidden" name="enabled" value="${enabled ? 'false' : 'true'}">`,
  enabled ? 'Switch the Users API off' : 'Switch the Users API on',
)}
</section>`;
}

const TIERS = [
  ['STANDARD', 'Standard buyers'],
  ['DEBIT_CARD_L2', 'Buyers with DEBIT_CARD_L2'],
] as const;
const WINDOWS = [
  ['daily', 'Daily'],
  ['weekly', 'Weekly'],
  ['yearly', 'Yearly'],
] as const;

function limitsSection(session: WebSession, base: string, limits: PartnerDetail['limits']) {
  const rows = TIERS.map(([tier, label]) => {
    const table = limits[tier];
    return [
      text(label),
      ...WINDOWS.map(([window]) => text(table ? `${table[window].toFixed()} USD` : 'default')),
    ];
  });
  const fieldsets = TIERS.map(
    ([tier, label]) => html`<fieldset><legend>${label}</legend>
${WINDOWS.map(([window, windowLabel]) =>
  textInput(
    `limit-${tier}-${window}`,
    `${tier}.${window}`,
    `${windowLabel} (USD)`,
    limits[tier]?.[window].toFixed(),
    {
      inputmode: 'decimal',
    },
  ),
)}</fieldset>`,
  );
  return html`<section aria-labelledby="limits-title">
<h2 id="limits-title">Card limits</h2>
${table('Card purchase limits per buyer', ['Tier', 'Daily', 'Weekly', 'Yearly'], rows, '')}
${changeForm(
  session,
  `${base}/card-limits`,
  html`<p class="hint">Leave a tier empty for the default tables; daily may not exceed weekly, nor weekly yearly.</p>${fieldsets}`,
  'Save card limits',
)}
</section>`;
}

function keysSection(session: WebSession, base: string, keys: PartnerDetail['keys']) {
  const rows = keys.map((key) => [
    html`<code>${key.apiKey}</code>`,
    text(key.type),
    text(key.desc === '' ? null : key.desc),
    text(key.ipWhitelist.length === 0 ? 'any' : key.ipWhitelist.join(', ')),
    text(key.origin),
    when(key.createdAt),
    changeForm(
      session,
      `${base}/keys/${encodeURIComponent(key.apiKey)}/revoke`,
      html``,
      `Revoke ${key.apiKey}`,
      'inline',
    ),
  ]);
  const typeSelect = html`<div class="field"><label for="key-type">Type</label>
<select id="key-type" name="type"><option value="FULL">FULL</option><option value="READONLY">READONLY</option></select></div>`;
  return html`<section aria-labelledby="keys-title">
<h2 id="keys-title">API keys</h2>
${table('Live API keys, oldest first', ['API key', 'Type', 'Description', 'IP whitelist', 'Made by', 'Created', ''], rows, 'This partner has no live key.')}
${changeForm(
  session,
  `${base}/keys`,
  html`${typeSelect}${textInput('key-desc', 'desc', 'Description', undefined)}${textInput(
    'key-whitelist',
    'ipWhitelist',
    'IP whitelist',
    undefined,
    { hint: 'Addresses or CIDR ranges separated by commas; empty allows any address.' },
  )}`,
  'Create an API key',
)}
</section>`;
}

function brandingSection(branding: PartnerDetail['branding']) {
  return html`<section aria-labelledby="branding-title">
<h2 id="branding-title">Checkout branding</h2>
<dl class="facts">
<dt>Display name</dt><dd>${branding.name ?? 'the partner’s account name'}</dd>
<dt>Accent colour</dt><dd>${branding.accentColor ?? 'default'}</dd>
<dt>Logo</dt><dd>${
    branding.logoUrl === null
      ? 'none'
      : html`<img src="${branding.logoUrl}" alt="Logo of ${branding.name ?? 'the partner'}" class="logo">`
  }</dd>
</dl>
<p class="hint">The partner sets its branding through the API (POST /v3/checkout/branding).</p>
</section>`;
}
