import { html, type SafeHtml } from '../web/index.ts';
import { ownerHref } from './links.ts';
import { callbacksSection, historySection, ledgerSection } from './timeline-sections.ts';
import type { transferTimeline } from './timelines.ts';
import { amount, badge, facts, link, mono, text, utc } from './view-kit.ts';

type TransferTimeline = NonNullable<Awaited<ReturnType<typeof transferTimeline>>>;

/** A transfer's page: its facts, status history, ledger entries and callbacks. */
export function transferMain(t: TransferTimeline): SafeHtml {
  const r = t.transfer;
  const networkTx = r.blockchain_tx?.networkTxId;
  return html`<h1>Transfer <span class="mono">${r.id}</span></h1>
<div class="panel">${facts([
    ['Status', badge(r.status)],
    ['Account', link(`/console/accounts/${r.account_id}`, r.account_id)],
    ['Source', link(ownerHref(r.source, r.partner_id), r.source)],
    [
      'Destination',
      r.dest.startsWith('user:') || r.dest.startsWith('account:')
        ? link(ownerHref(r.dest, r.partner_id), r.dest)
        : mono(r.dest),
    ],
    ['Sends', amount(r.source_amount, r.source_currency)],
    ['Delivers', amount(r.dest_amount, r.dest_currency)],
    ['Fees', amount(r.total_fees, r.source_currency)],
    ['Network fee', mono(r.network_fee)],
    ['Rate', mono(r.exchange_rate)],
    ['Chain transaction', typeof networkTx === 'string' ? mono(networkTx) : null],
    ['Failure', text(r.failure_reason)],
    ['Custom id', text(r.custom_id)],
    ['Created (UTC)', utc(r.created_at)],
    ['Expires (UTC)', utc(r.expires_at)],
    ['Completed (UTC)', utc(r.completed_at)],
  ])}</div>
${historySection(t.history)}
${ledgerSection(t.entries, t.hold)}
${callbacksSection(t.callbacks)}`;
}
