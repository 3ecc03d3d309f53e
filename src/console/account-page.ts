import type { TransferRow } from '../transfers/index.ts';
import type { OrderRow } from '../wallet-orders/index.ts';
import { html, type SafeHtml } from '../web/index.ts';
import type { AccountCursors, accountTimeline } from './timelines.ts';
import { amount, badge, facts, link, mono, pager, table, text, utc } from './view-kit.ts';

type AccountTimeline = NonNullable<Awaited<ReturnType<typeof accountTimeline>>>;

/** An account's page: its facts, balances, users, card orders and transfers, each list paged. */
export function accountMain(t: AccountTimeline, cursors: AccountCursors): SafeHtml {
  const a = t.account;
  const path = `/console/accounts/${a.id}`;
  const query = { users: cursors.users, orders: cursors.orders, transfers: cursors.transfers };
  return html`<h1>Account <span class="mono">${a.id}</span></h1>
<div class="panel">${facts([
    ['Name', text(a.name)],
    ['Status', badge(a.status)],
    ['Kind', text(`${a.kind} · ${a.type} · ${a.country}`)],
    [
      'Partner',
      a.partner_id === a.id ? text('itself') : link(`/console/accounts/${a.partner_id}`, a.partner_id),
    ],
    ['Parent', a.parent_id ? link(`/console/accounts/${a.parent_id}`, a.parent_id) : null],
    ['E-mail', text(a.email)],
    ['Users API', text(a.users_api_enabled ? 'enabled' : 'off')],
    ['Created (UTC)', utc(a.created_at)],
  ])}</div>
<h2>Balances</h2>
${balancesTable(t.balances)}
<h2>Users</h2>
${table(
  'Users of the account',
  ['User', 'Created (UTC)', 'Onboarding'],
  t.users.rows.map((u) => [
    link(`/console/users/${u.id}`, u.id),
    utc(u.created_at),
    text(u.onboarding_status),
  ]),
)}
${pager('More users', path, query, 'users', t.users.next)}
<h2>Card orders</h2>
${ordersTable(t.orders.rows)}
${pager('More card orders', path, query, 'orders', t.orders.next)}
<h2>Transfers</h2>
${transfersTable(t.transfers.rows)}
${pager('More transfers', path, query, 'transfers', t.transfers.next)}`;
}

export function balancesTable(lines: { currency: string; total: string; available: string }[]): SafeHtml {
  return table(
    'Balances',
    ['Currency', 'Total', 'Available'],
    lines.map((b) => [text(b.currency), mono(b.total), mono(b.available)]),
    'No balance.',
  );
}

export function ordersTable(rows: OrderRow[]): SafeHtml {
  return table(
    'Card orders',
    ['Order', 'Created (UTC)', 'Status', 'Paid', 'Delivers'],
    rows.map((o) => [
      link(`/console/orders/${o.id}`, o.id),
      utc(o.created_at),
      badge(o.status),
      amount(o.source_amount, o.source_currency),
      amount(o.dest_amount, o.dest_currency),
    ]),
  );
}

export function transfersTable(rows: TransferRow[]): SafeHtml {
  return table(
    'Transfers',
    ['Transfer', 'Created (UTC)', 'Status', 'Sends', 'Delivers'],
    rows.map((r) => [
      link(`/console/transfers/${r.id}`, r.id),
      utc(r.created_at),
      badge(r.status),
      amount(r.source_amount, r.source_currency),
      amount(r.dest_amount, r.dest_currency),
    ]),
  );
}
