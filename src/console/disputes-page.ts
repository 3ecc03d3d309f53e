import type { cardPaymentsNeedingAttention, ListedDispute, ListedOrder } from '../wallet-orders/index.ts';
import { html } from '../web/index.ts';
import { nextPageLink, table, text, when } from './list-kit.ts';

/** Card orders (every partner's, newest first), disputes and what a remote processor left undecided. */

export const ORDER_STATUSES = ['RUNNING_CHECKS', 'PROCESSING', 'COMPLETE', 'FAILED', 'CHARGEBACK'] as const;

export function ordersTable(caption: string, rows: ListedOrder[], empty: string) {
  const cells = rows.map((row) => [
    html`<code>${row.id}</code>`,
    html`<a href="${`/console/partners/${encodeURIComponent(row.partner_id)}`}">${row.partner_id}</a>`,
    text(row.status),
    text(`${row.source_amount} ${row.source_currency}`),
    text(`${row.dest_amount} ${row.dest_currency}`),
    text(row.email),
    when(row.created_at),
  ]);
  return table(
    caption,
    ['Order', 'Partner', 'Status', 'Charged', 'Bought', 'Buyer', 'Created'],
    cells,
    empty,
  );
}

export function ordersHtml(status: string | undefined, rows: ListedOrder[], next: string | undefined) {
  const options = ORDER_STATUSES.map(
    (value) => html`<option value="${value}"${value === status ? html` selected` : html``}>${value}</option>`,
  );
  return html`<h1>Card orders</h1>
<form method="get" action="/console/orders" class="form filters">
<div class="field"><label for="orders-status">Status</label>
<select id="orders-status" name="status"><option value="">any</option>${options}</select></div>
<button class="button" type="submit">Show</button>
</form>
${ordersTable('Card orders of every partner, newest first', rows, 'No order matches.')}
${nextPageLink('/console/orders', { status }, next)}`;
}

type Attention = Awaited<ReturnType<typeof cardPaymentsNeedingAttention>>;

export function disputesHtml(
  disputes: { rows: ListedDispute[]; next: string | undefined; openOnly: boolean },
  chargebacks: { rows: ListedOrder[]; next: string | undefined },
  attention: Attention,
) {
  const disputeCells = disputes.rows.map((d) => [
    text(d.reference),
    html`<code>${d.order_id}</code>`,
    text(d.status),
    text(`${d.amount} ${d.currency}`),
    text(`${d.withdrawn} ${d.currency}`),
    text(d.reason),
    when(d.opened_at),
    when(d.closed_at),
  ]);
  const paymentCells = attention.payments.map((p) => [
    html`<code>${p.orderId}</code>`,
    text(p.processor),
    text(p.reference),
    text(p.state),
    text(`${p.amount.toFixed()} ${p.currency}`),
    text(p.attention),
  ]);
  const operationCells = attention.operations.map((op) => [
    html`<code>${op.orderId}</code>`,
    text(op.kind),
    text(op.amount === null ? null : op.amount.toFixed()),
    text(op.detail),
    when(op.at),
  ]);
  return html`<h1>Disputes and card payments needing attention</h1>
<section aria-labelledby="disputes-title">
<h2 id="disputes-title">Disputes</h2>
<p>${
    disputes.openOnly
      ? html`Open disputes only. <a href="/console/disputes?all=1">Show every dispute</a>`
      : html`Every dispute. <a href="/console/disputes">Show the open ones only</a>`
  }</p>
${table('Card disputes, newest first', ['Dispute', 'Order', 'Status', 'Disputed', 'Withdrawn', 'Reason', 'Opened', 'Closed'], disputeCells, 'No dispute.')}
${nextPageLink('/console/disputes', { all: disputes.openOnly ? undefined : '1' }, disputes.next)}
</section>
<section aria-labelledby="chargeback-title">
<h2 id="chargeback-title">Orders in CHARGEBACK</h2>
${ordersTable('Orders in CHARGEBACK, newest first', chargebacks.rows, 'No order is in CHARGEBACK.')}
${nextPageLink('/console/disputes', {}, chargebacks.next, 'orders_after')}
</section>
<section aria-labelledby="attention-title">
<h2 id="attention-title">Card payments needing attention</h2>
<p class="hint">Left by a remote processor: decide them from the processor’s dashboard. With the sandbox processor both lists stay empty.</p>
${table('Authorizations the status poll gave up on', ['Order', 'Processor', 'Reference', 'State', 'Amount', 'Why'], paymentCells, 'No authorization is waiting.')}
${table('Captures, voids and refunds the processor refused', ['Order', 'Operation', 'Amount', 'Processor’s words', 'When'], operationCells, 'No refused operation.')}
</section>`;
}
