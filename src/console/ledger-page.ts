import type { BalanceLine } from '../ledger/index.ts';
import { html } from '../web/index.ts';
import { nextPageLink, table, text } from './list-kit.ts';

/** Ledger balances: the house's and the outside world's in full, customers' a page at a time. */

export const BALANCE_KINDS = ['all', 'account', 'user', 'wallet'] as const;
export type BalanceKind = (typeof BALANCE_KINDS)[number];

const balanceRows = (lines: BalanceLine[]) =>
  lines.map((line) => [text(line.owner), text(line.currency), text(line.total), text(line.available)]);

export function ledgerHtml(
  house: BalanceLine[],
  customers: BalanceLine[],
  filter: { kind: BalanceKind; owner: string | undefined },
  next: string | undefined,
) {
  const options = BALANCE_KINDS.map(
    (kind) =>
      html`<option value="${kind}"${kind === filter.kind ? html` selected` : html``}>${
        kind === 'all' ? 'every owner' : `${kind}s`
      }</option>`,
  );
  const headers = ['Owner', 'Currency', 'Total', 'Available'];
  return html`<h1>Ledger balances</h1>
<section aria-labelledby="house-title">
<h2 id="house-title">House and external accounts</h2>
<p class="hint">External owners mirror the outside world (card processor, chains, bank) and may be negative.</p>
${table('House and external balances', headers, balanceRows(house), 'No house balance yet.')}
</section>
<section aria-labelledby="customers-title">
<h2 id="customers-title">Customer balances</h2>
<form method="get" action="/console/ledger" class="form filters">
<div class="field"><label for="ledger-kind">Owners</label><select id="ledger-kind" name="kind">${options}</select></div>
<div class="field"><label for="ledger-owner">One owner</label>
<input id="ledger-owner" name="owner" type="search" value="${filter.owner ?? ''}" placeholder="account:AC_…" autocomplete="off"></div>
<button class="button" type="submit">Show</button>
</form>
${table('Customer balances by owner and currency', headers, balanceRows(customers), 'No balance matches.')}
${nextPageLink('/console/ledger', { kind: filter.kind === 'all' ? undefined : filter.kind, owner: filter.owner }, next)}
</section>`;
}
