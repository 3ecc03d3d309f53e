import type { partnerDeliveries, partnerDelivery } from '../../callbacks/index.ts';
import type { Balances } from '../../ledger/index.ts';
import type { walletsAfter } from '../../wallets/index.ts';
import { html, type SafeHtml } from '../../web/index.ts';
import { amount, facts, nextPage, status, table, when } from '../format.ts';

type WalletView = Awaited<ReturnType<typeof walletsAfter>>[number];
type DeliveryView = Awaited<ReturnType<typeof partnerDeliveries>>[number];
type DeliveryDetail = Awaited<ReturnType<typeof partnerDelivery>>;

/** The account's ledger balances (GET /v2/account's totalBalances and availableBalances), then its wallets'. */
export function balancesView(own: Balances, wallets: WalletView[], after: string | undefined): SafeHtml {
  const currencies = Object.keys(own.totalBalances).sort();
  const rows = currencies.map((currency) => [
    html`${currency}`,
    html`<span class="num">${amount(own.totalBalances[currency])}</span>`,
    html`<span class="num">${amount(own.availableBalances[currency])}</span>`,
  ]);
  const walletRows = wallets.map((w) => [
    html`<code>${w.id}</code>`,
    html`${w.name}`,
    html`${
      Object.entries(w.balances)
        .map(([currency, value]) => `${amount(value)} ${currency}`)
        .join(', ') || '—'
    }`,
  ]);
  return html`<h2>Account</h2>
${table('Account balances', ['Currency', 'Total', 'Available (less holds)'], rows, 'The account holds nothing yet.')}
<h2>Wallets</h2>
${table('Wallets, oldest first', ['Wallet', 'Name', 'Balances'], walletRows, 'No wallets.')}
${nextPage('/dashboard/balances', after)}`;
}

export function deliveriesList(deliveries: DeliveryView[], after: string | undefined): SafeHtml {
  const rows = deliveries.map((d) => [
    html`<a href="/dashboard/callbacks/${d.id}"><code>${d.id}</code></a>`,
    status(d.status),
    html`<code>${d.trigger}</code>`,
    html`${d.url}`,
    html`${d.lastStatusCode === null ? '—' : String(d.lastStatusCode)}${d.lastError ? ` · ${d.lastError}` : ''}`,
    html`${String(d.attempts)}`,
    when(d.createdAt),
  ]);
  return html`<p>Every callback sent to your URLs, with your server's last answer. Resending is the operator's (the API offers partners none).</p>
${table('Callback deliveries, newest first', ['Delivery', 'Status', 'About', 'URL', 'Last answer', 'Attempts', 'Created'], rows, 'No callbacks sent yet.')}
${nextPage('/dashboard/callbacks', after)}`;
}

export function deliveryDetail(d: DeliveryDetail): SafeHtml {
  const attempts = d.attemptLog.map((a) => [
    when(a.startedAt),
    html`${a.statusCode === null ? '—' : String(a.statusCode)}`,
    html`${String(a.latencyMs)} ms`,
    html`${a.error ?? '—'}`,
  ]);
  return html`${facts([
    ['Delivery', html`<code>${d.id}</code>`],
    ['Status', status(d.status)],
    ['About', html`<code>${d.trigger}</code>`],
    ['URL', d.url],
    ['Attempts', String(d.attempts)],
    ['Created', when(d.createdAt)],
  ])}
<h2>Attempts and answers</h2>
${table('Attempts', ['Started', 'HTTP status', 'Took', 'Error'], attempts, 'Not attempted yet.')}`;
}
