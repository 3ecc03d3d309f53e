import type { AccountKeyRow } from '../../identity/index.ts';
import { html, type SafeHtml } from '../../web/index.ts';
import { csrfField, type WebSession } from '../../web/sessions/index.ts';
import { nextPage, status, table, when } from '../format.ts';

export interface NewSecret {
  apiKey: string;
  secretKey: string;
}

/** Shown once, in the answer to the post that made it; the page is never cached (no-store). */
function secretOnce(created: NewSecret | undefined): SafeHtml {
  if (!created) return html``;
  return html`<section class="card" aria-labelledby="new-key-title" id="new-key">
<h2 id="new-key-title">New key: copy its secret now</h2>
<p>The secret is shown this once and cannot be read again.</p>
<p>API key <code id="new-api-key">${created.apiKey}</code></p>
<p>Secret key <code class="secret" id="new-secret">${created.secretKey}</code></p>
</section>`;
}

export function keysView(
  session: WebSession,
  keys: AccountKeyRow[],
  after: string | undefined,
  created?: NewSecret,
): SafeHtml {
  const rows = keys.map((key) => {
    const current = key.api_key === session.apiKey;
    const revoke = key.deleted_at
      ? html``
      : html`<form method="post" action="/dashboard/api-keys/${key.api_key}/revoke">${csrfField(session)}${
          current
            ? html`<label class="check"><input type="checkbox" name="confirm" value="yes" id="confirm-${key.api_key}"> This is my session's key: revoke it and sign out</label>`
            : html``
        }<button type="submit" class="danger" id="revoke-${key.api_key}" aria-label="Revoke ${key.api_key}">Revoke</button></form>`;
    return [
      html`<code>${key.api_key}</code>${current ? html` <span class="hint">(this session)</span>` : html``}`,
      html`${key.description || '—'}`,
      html`${key.type}`,
      when(key.created_at),
      key.last_used_at ? when(key.last_used_at) : html`never`,
      key.deleted_at ? html`${status('REVOKED')} ${when(key.deleted_at)}` : status('LIVE'),
      revoke,
    ];
  });
  return html`${secretOnce(created)}
<p>"Last used" moves at most once a minute.</p>
${table('API keys, newest first', ['Key', 'Description', 'Type', 'Created', 'Last used', 'State', ''], rows, 'No keys.')}
${nextPage('/dashboard/api-keys', after)}
<h2 id="create-title">Create a key</h2>
<form method="post" action="/dashboard/api-keys" class="card" aria-labelledby="create-title">
${csrfField(session)}
<label for="key-desc">Description <span class="hint">What the key is for</span></label>
<input type="text" id="key-desc" name="desc" maxlength="200">
<label for="key-type">Type</label>
<select id="key-type" name="type"><option value="FULL">FULL</option><option value="READONLY">READONLY</option></select>
<label for="key-whitelist">IP whitelist <span class="hint">Addresses or CIDR ranges, comma separated; empty for any</span></label>
<input type="text" id="key-whitelist" name="ipWhitelist" maxlength="2000">
<button type="submit" class="primary" id="create-key">Create key</button>
</form>`;
}

export function webhookView(session: WebSession, isSet: boolean, rotated?: string): SafeHtml {
  const shown = rotated
    ? html`<section class="card" aria-labelledby="new-secret-title" id="rotated">
<h2 id="new-secret-title">New signing secret: copy it now</h2>
<p>Callbacks are signed with it from now on; the old one no longer verifies. It is shown this once.</p>
<code class="secret" id="webhook-secret">${rotated}</code></section>`
    : html``;
  return html`${shown}
<p id="webhook-state">${isSet ? 'A signing secret is set: every callback carries X-Rampart-Signature made with it.' : 'No signing secret yet: one is made when the first callback is signed.'}</p>
<form method="post" action="/dashboard/webhook-secret" class="card">
${csrfField(session)}
<p>Rotating makes a new secret at once. Update your receiver right after: callbacks signed with the new secret do not verify with the old one.</p>
<button type="submit" class="primary" id="rotate">Rotate the signing secret</button>
</form>`;
}

export interface PurchaseForm {
  sourceAmount: string;
  destCurrency: string;
  dest: string;
}

export function purchaseView(
  session: WebSession,
  form: PurchaseForm,
  link?: { url: string; reservation: string },
): SafeHtml {
  const made = link
    ? html`<section class="card" aria-labelledby="made-title" id="reservation">
<h2 id="made-title">Reservation <code id="reservation-id">${link.reservation}</code></h2>
<p>Valid for 15 minutes, once. Pay with a sandbox test card, such as 4111 1111 1111 1111.</p>
<a class="button" href="${link.url}" id="open-checkout">Open the hosted checkout</a></section>`
    : html``;
  return html`${made}
<p>A sandbox purchase through the same service as POST /v3/orders/reserve, paid on the hosted checkout. It shows up under Orders.</p>
<form method="post" action="/dashboard/test-purchase" class="card">
${csrfField(session)}
<label for="p-amount">Amount <span class="hint">US dollars, before fees</span></label>
<input type="text" id="p-amount" name="sourceAmount" inputmode="decimal" required maxlength="20" value="${form.sourceAmount}">
<label for="p-currency">Buy</label>
<input type="text" id="p-currency" name="destCurrency" required maxlength="10" value="${form.destCurrency}">
<label for="p-dest">Deliver to <span class="hint">chain:address, as the API's dest</span></label>
<input type="text" id="p-dest" name="dest" required maxlength="200" spellcheck="false" value="${form.dest}">
<button type="submit" class="primary" id="reserve">Reserve and get the checkout link</button>
</form>`;
}
