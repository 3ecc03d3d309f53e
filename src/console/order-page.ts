import { html, type SafeHtml } from '../web/index.ts';
import { callbacksSection, historySection, ledgerSection } from './timeline-sections.ts';
import type { orderTimeline } from './timelines.ts';
import { amount, badge, facts, link, mono, text, utc } from './view-kit.ts';

type OrderTimeline = NonNullable<Awaited<ReturnType<typeof orderTimeline>>>;

/** A card order's page: its facts, status history, card payment, ledger and callbacks. */
export function orderMain(t: OrderTimeline): SafeHtml {
  const o = t.order;
  const fees = Object.entries(o.fees)
    .map(([currency, value]) => `${value} ${currency}`)
    .join(', ');
  return html`<h1>Order <span class="mono">${o.id}</span></h1>
<div class="panel">${facts([
    ['Status', badge(o.status)],
    ['Account', link(`/console/accounts/${o.account_id}`, o.account_id)],
    ['User', o.owner_user_id ? link(`/console/users/${o.owner_user_id}`, o.owner_user_id) : null],
    ['Reservation', mono(o.reservation_id)],
    ['Paid', amount(o.source_amount, o.source_currency)],
    ['Purchase', amount(o.purchase_amount, o.source_currency)],
    ['Fees', text(fees)],
    ['Delivers', amount(o.dest_amount, o.dest_currency)],
    ['Rate', mono(o.exchange_rate)],
    ['Destination', mono(o.dest)],
    ['Buyer', text(`${o.given_name} ${o.family_name} · ${o.email}`)],
    ['Card', text(`${o.card_brand} ${o.card_bin}…${o.card_last4}`)],
    ['Delivery transfer', o.transfer_id ? link(`/console/transfers/${o.transfer_id}`, o.transfer_id) : null],
    ['Error', o.error_code ? text(`${o.error_code}: ${o.error_message ?? ''}`) : null],
    ['Created (UTC)', utc(o.created_at)],
    ['Updated (UTC)', utc(o.updated_at)],
  ])}</div>
${historySection(t.history)}
${paymentSection(t)}
${ledgerSection(t.entries, t.hold)}
${callbacksSection(t.callbacks)}`;
}

function paymentSection(t: OrderTimeline): SafeHtml {
  const o = t.order;
  const p = t.payment;
  const step = o.auth_method ? html`${o.auth_method} ${badge(o.auth_state ?? '')}` : null;
  const processor = p
    ? facts([
        ['Processor', text(p.processor)],
        ['State', badge(p.state)],
        ['Amount', amount(p.amount, p.currency)],
        ['Reference', mono(p.reference)],
        ['Decline', p.decline_reason ? text(`${p.decline_reason} (${p.processor_code ?? ''})`) : null],
        ['Needs attention', text(p.attention)],
        ['Authorization expires (UTC)', utc(p.authorization_expires_at)],
      ])
    : html`<p class="muted">Authorised by the sandbox processor: no remote payment record.</p>`;
  return html`<h2>Card payment</h2>
<div class="panel">${facts([
    ['Authorization step', step],
    ['Captured (UTC)', utc(o.captured_at)],
    ['Finished (UTC)', utc(o.completed_at)],
  ])}${processor}</div>`;
}
