import type { ChainReconciliation } from '../chains/index.ts';
import type { CardReconciliation } from '../wallet-orders/index.ts';
import { html, type SafeHtml } from '../web/index.ts';
import type { WebSession } from '../web/sessions/index.ts';
import { changeForm, textInput } from './forms.ts';
import { noticeOf, table, text, when } from './list-kit.ts';

/** Reconciliation: each chain's custody against the ledger, and the card money against the processor. */

export type ChainOutcome = { chain: string } & (
  | { ok: true; reconciliation: ChainReconciliation }
  | { ok: false; message: string }
);

const verdict = (balanced: boolean) =>
  balanced ? html`<strong class="ok">balanced</strong>` : html`<strong class="bad">NOT BALANCED</strong>`;

export function reconciliationHtml(
  session: WebSession,
  chains: ChainOutcome[],
  cards: { period: { from: string; to: string }; result?: CardReconciliation; error?: string },
) {
  return html`<h1>Reconciliation</h1>
<section aria-labelledby="chains-title">
<h2 id="chains-title">Chains</h2>
${chains.length === 0 ? html`<p class="empty">No chain has real custody here (no RPC URL is set), so there is nothing on chain to compare.</p>` : chains.map(chainHtml)}
</section>
<section aria-labelledby="cards-title">
<h2 id="cards-title">Card money</h2>
<p class="hint">Running it books the processor fees its balance transactions show that the ledger lacks (each once), then compares to the cent.</p>
${changeForm(
  session,
  '/console/reconciliation/cards',
  html`${textInput('cards-from', 'from', 'From', cards.period.from, { hint: 'ISO 8601 time or epoch milliseconds; empty: 30 days before the end.' })}
${textInput('cards-to', 'to', 'Until', cards.period.to, { hint: 'Empty: now.' })}`,
  'Reconcile card money',
)}
${session.role === 'admin' ? html`` : html`<p>An admin runs the card reconciliation.</p>`}
${noticeOf('error', cards.error)}
${cards.result === undefined ? html`` : cardsHtml(cards.result)}
</section>`;
}

function chainHtml(outcome: ChainOutcome): SafeHtml {
  if (!outcome.ok) {
    return html`<h3>${outcome.chain}</h3>${noticeOf('error', outcome.message)}`;
  }
  const r = outcome.reconciliation;
  const rows = r.currencies.map((line) => [
    text(line.currency),
    text(line.liabilities.toFixed()),
    text(line.houseInventory.toFixed()),
    text(line.houseOther.toFixed()),
    text(line.pendingWithdrawals.toFixed()),
    text(line.expectedOnChain.toFixed()),
    text(line.onChain.toFixed()),
    text(line.difference.toFixed()),
    verdict(line.balanced),
    text(line.shortfall.toFixed()),
  ]);
  return html`<h3>${r.chain}: ${verdict(r.balanced)}</h3>
<p>At block ${r.blockNumber}; hot wallet <code>${r.hotWalletAddress}</code>; house deposits to <code>${r.houseDepositAddress}</code>.</p>
${table(`${r.chain} custody against the ledger`, ['Currency', 'Customers', 'House inventory', 'House other', 'Pending sends', 'Expected', 'On chain', 'Difference', '', 'Shortfall'], rows, 'No currency on this chain.')}`;
}

function cardsHtml(result: CardReconciliation): SafeHtml {
  const currencies = result.currencies.map((line) => [
    text(line.currency),
    text(line.captured.toFixed()),
    text(line.refunded.toFixed()),
    text(line.chargebacks.toFixed()),
    text(line.processingFees.toFixed()),
    text(line.disputeFees.toFixed()),
    text(line.ledgerNet.toFixed()),
    text(line.processorNet.toFixed()),
    text(line.difference.toFixed()),
  ]);
  const mismatches = result.mismatches.map((m) => [
    text(m.orderId ?? 'no order'),
    text(m.currency),
    text(m.category),
    text(m.ledger.toFixed()),
    text(m.processor.toFixed()),
    text(m.difference.toFixed()),
  ]);
  const payouts = result.payouts.map((p) => [
    text(p.reference),
    text(`${p.amount.toFixed()} ${p.currency}`),
    text(p.status),
    text(p.paidOutTransactions.toFixed()),
    text(p.matched ? 'matched' : 'NOT MATCHED'),
  ]);
  return html`<h3 id="cards-verdict">${when(result.from)} to ${when(result.to)}: ${verdict(result.balanced)}</h3>
<p>${result.feesBooked} processor fee(s) booked by this run.</p>
${table('Per currency, ledger against processor', ['Currency', 'Captured', 'Refunded', 'Chargebacks', 'Processing fees', 'Dispute fees', 'Ledger net', 'Processor net', 'Difference'], currencies, 'No card money moved in the period.')}
<h4>Mismatches</h4>
${table('Mismatches by order', ['Order', 'Currency', 'Category', 'Ledger', 'Processor', 'Difference'], mismatches, 'None: every order matches to the cent.')}
<h4>Payouts</h4>
${table('Payouts', ['Payout', 'Amount', 'Status', 'Paid-out transactions', 'Match'], payouts, 'No payout in the period.')}`;
}
