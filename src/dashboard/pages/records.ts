import type { getTransfer, transfersAfter } from '../../transfers/index.ts';
import type { ownedUser, ownedUsersAfter } from '../../users/index.ts';
import type { walletOrdersAfter } from '../../wallet-orders/index.ts';
import { html, type SafeHtml } from '../../web/index.ts';
import { amount, facts, nextPage, status, table, when } from '../format.ts';

type OrderView = Awaited<ReturnType<typeof walletOrdersAfter>>[number];
type TransferView = Awaited<ReturnType<typeof transfersAfter>>[number];
type TransferDetail = Awaited<ReturnType<typeof getTransfer>>;
type UserSummary = Awaited<ReturnType<typeof ownedUsersAfter>>[number];
type UserDetail = NonNullable<Awaited<ReturnType<typeof ownedUser>>>;

const link = (path: string, id: string) =>
  html`<a href="${path}/${id}" id="${path.slice('/dashboard/'.length, -1)}-${id}"><code>${id}</code></a>`;

export function ordersList(orders: OrderView[], after: string | undefined): SafeHtml {
  const rows = orders.map((o) => [
    link('/dashboard/orders', o.id),
    status(o.status),
    html`<span class="num">${amount(o.sourceAmount, o.sourceCurrency)}</span>`,
    html`<span class="num">${amount(o.destAmount, o.destCurrency)}</span>`,
    when(o.createdAt),
  ]);
  return html`${table('Card orders, newest first', ['Order', 'Status', 'Paid', 'Bought', 'Created'], rows, 'No orders yet.')}
${nextPage('/dashboard/orders', after)}`;
}

export function orderDetail(o: OrderView): SafeHtml {
  const fees = Object.entries(o.fees)
    .map(([code, value]) => `${amount(value)} ${code}`)
    .join(', ');
  return facts([
    ['Order', html`<code id="order-id">${o.id}</code>`],
    ['Status', status(o.status)],
    ['Paid', amount(o.sourceAmount, o.sourceCurrency)],
    ['Purchase', amount(o.purchaseAmount, o.sourceCurrency)],
    ['Fees', fees || '—'],
    ['Bought', amount(o.destAmount, o.destCurrency)],
    ['Rate', amount(o.exchangeRate)],
    ['Destination', html`<code>${o.dest}</code>`],
    ['Card', o.paymentMethodName],
    ['Reservation', html`<code>${o.reservationId}</code>`],
    ['Transfer', o.transferId ? link('/dashboard/transfers', o.transferId) : '—'],
    ['Failure', o.failureReason ?? '—'],
    ['Created', when(o.createdAt)],
    ['Completed', when(o.completedAt)],
  ]);
}

export function transfersList(transfers: TransferView[], after: string | undefined): SafeHtml {
  const rows = transfers.map((t) => [
    link('/dashboard/transfers', t.id),
    status(t.status),
    html`<code>${t.source}</code>`,
    html`<code>${t.dest}</code>`,
    html`<span class="num">${amount(t.sourceAmount, t.sourceCurrency)}</span>`,
    html`<span class="num">${amount(t.destAmount, t.destCurrency)}</span>`,
    when(t.createdAt),
  ]);
  return html`${table('Transfers, newest first', ['Transfer', 'Status', 'From', 'To', 'Sent', 'Received', 'Created'], rows, 'No transfers yet.')}
${nextPage('/dashboard/transfers', after)}`;
}

export function transferDetail(t: TransferDetail): SafeHtml {
  const history = t.statusHistories.map((entry) => [status(String(entry.state)), when(entry.createdAt)]);
  return html`${facts([
    ['Transfer', html`<code id="transfer-id">${t.id}</code>`],
    ['Status', status(t.status)],
    ['From', html`<code>${t.source}</code>`],
    ['To', html`<code>${t.dest}</code>`],
    ['Sent', amount(t.sourceAmount, t.sourceCurrency)],
    ['Received', amount(t.destAmount, t.destCurrency)],
    ['Total fees', amount(t.totalFees)],
    ['Message', t.message ?? '—'],
    ['Failure', t.failureReason ?? '—'],
    ['Created', when(t.createdAt)],
    ['Completed', when(t.completedAt)],
  ])}
<h2>Status history</h2>
${table('Status history', ['Status', 'At'], history, 'No history.')}`;
}

export function usersList(users: UserSummary[], after: string | undefined): SafeHtml {
  const rows = users.map((u) => [link('/dashboard/users', u.id), status(u.status), when(u.createdAt)]);
  return html`<p>The users your account created through the Users API (their KYC values are theirs: only what they have sent is listed).</p>
${table('Users, newest first', ['User', 'Onboarding', 'Created'], rows, 'No users yet.')}
${nextPage('/dashboard/users', after)}`;
}

export function userDetail(u: UserDetail): SafeHtml {
  const scopes = u.scopes.map((s) => [html`${s.scope}`, status(s.status)]);
  return html`${facts([
    ['User', html`<code id="user-id">${u.id}</code>`],
    ['Onboarding', status(u.status)],
    ['Fields sent', u.fieldIds.join(', ') || '—'],
    ['Created', when(u.createdAt)],
  ])}
<h2>Scopes</h2>
${table('Scopes', ['Scope', 'Status'], scopes, 'No scopes.')}`;
}
