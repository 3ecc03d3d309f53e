import { type TransferCreatedArguments, transferCreatedArguments } from '../callbacks/index.ts';
import { type ChainsDeps, chainBooksGas, chainsForCurrency } from '../chains/index.ts';
import type { Scope } from '../identity/index.ts';
import { type HoldArguments, holdArguments, ledgerRefusal, type NewEntry } from '../ledger/index.ts';
import { Money } from '../platform/money.ts';
import type { TransferRulesDeps } from './deps.ts';
import { transferErrors } from './errors.ts';
import { ledgerOwner, movesThroughBank, type Party } from './parties.ts';
import { settlementPostings } from './postings.ts';
import { historyEntry, type StoredHistoryEntry } from './status-history.ts';
import type { NewTransfer, TransferStatus } from './store.ts';
import type { PreparedTransfer } from './transfer-request.ts';

/**
 * What a new transfer writes, whether created alone or grouped with others (service.ts): its
 * row, its callbacks, its hold or its settlement entry.
 */

const MINUTE_MS = 60_000;
export const TRANSFER_ENTRY_KIND = 'transfer';

/** docs/contract.md, Transfers: quotes hold 15 minutes without exchange or between fiat currencies, 10 with crypto. */
export function quoteLockMs(sourceCurrency: string, destCurrency: string): number {
  const crypto = chainsForCurrency(sourceCurrency).length > 0 || chainsForCurrency(destCurrency).length > 0;
  return (sourceCurrency !== destCurrency && crypto ? 10 : 15) * MINUTE_MS;
}

/** autoConfirm: settled by the creating statement (COMPLETED, or PENDING until the chain confirms). */
export function settlesAtOnce(p: PreparedTransfer): boolean {
  return p.autoConfirm && !p.preview;
}

/** A withdrawal waits for the chain, a payout or ACH pull for the bank: PENDING until they report. */
export function waitsForOutside(p: { source: Party; dest: Party }): boolean {
  return p.dest.kind === 'chain' || movesThroughBank(p);
}

export function confirmedHistory(waits: boolean, atMs: number): StoredHistoryEntry[] {
  const pending = historyEntry('PENDING', atMs);
  return waits ? [pending] : [pending, historyEntry('COMPLETED', atMs)];
}

export function newTransferRow(
  ctx: TransferRulesDeps,
  scope: Scope,
  p: PreparedTransfer,
  id: string,
): NewTransfer {
  const nowMs = ctx.clock.nowMs();
  const status: TransferStatus = p.preview
    ? 'PREVIEW'
    : !p.autoConfirm
      ? 'UNCONFIRMED'
      : waitsForOutside(p)
        ? 'PENDING'
        : 'COMPLETED';
  const history =
    status === 'PREVIEW'
      ? [historyEntry('PREVIEW', nowMs)]
      : [
          historyEntry('INITIATED', nowMs),
          ...(p.autoConfirm ? confirmedHistory(waitsForOutside(p), nowMs) : []),
        ];
  return {
    id,
    partner_id: scope.partnerId,
    account_id: scope.accountId,
    owner: scope.userId ? `user:${scope.userId}` : `account:${scope.accountId}`,
    source: p.source.srn,
    dest: p.dest.srn,
    source_currency: p.sourceCurrency,
    dest_currency: p.destCurrency,
    source_amount: p.quote.sourceAmount.toFixed(),
    source_amount_without_fees: p.quote.sourceAmountWithoutFees.toFixed(),
    dest_amount: p.quote.destAmount.toFixed(),
    network_fee: p.quote.networkFee.toFixed(),
    exchange_rate: p.quote.exchangeRate?.toFixed() ?? null,
    fees: Object.fromEntries(Object.entries(p.quote.fees).map(([c, fee]) => [c, fee.toFixed()])),
    total_fees: p.quote.totalFees.toFixed(),
    message: p.message,
    custom_id: p.customId,
    status,
    hold_id: null,
    status_history: history,
    created_at: new Date(nowMs),
    completed_at: status === 'COMPLETED' ? new Date(nowMs) : null,
    expires_at: new Date(nowMs + quoteLockMs(p.sourceCurrency, p.destCurrency)),
  };
}

/** Every real (non-preview) transfer's callbacks: subscriptions to it, its account, owner or parties. */
export function creationCallbacks(
  ctx: TransferRulesDeps,
  scope: Scope,
  p: PreparedTransfer,
  fresh: NewTransfer,
): TransferCreatedArguments {
  return transferCreatedArguments(ctx, {
    accountId: scope.accountId,
    partnerId: scope.partnerId,
    transferId: fresh.id,
    owner: fresh.owner,
    // Subscriptions to either party (e.g. the receiving user) are matched too.
    parties: [fresh.source, fresh.dest],
    ...(p.notifyUrl !== undefined ? { notifyUrl: p.notifyUrl } : {}),
  });
}

/** An UNCONFIRMED transfer holds sourceAmount until confirm or expiry. */
export function creationHold(p: PreparedTransfer, fresh: NewTransfer): HoldArguments {
  return holdArguments({
    owner: fresh.source,
    currency: fresh.source_currency,
    amount: p.quote.sourceAmount,
    expiresAtMs: fresh.expires_at.getTime(),
    reference: `transfer:${fresh.id}`,
  });
}

/**
 * The transfer's settlement entry from its figures as stored (or about to be: a new row's amounts
 * are its quote's): what settles it, and what a reversal negates.
 */
export function transferPostings(ctx: Pick<ChainsDeps, 'chains'>, row: NewTransfer, dest: Party) {
  return settlementPostings({
    // An ACH pull's source is the outside world: external:bank.
    sourceOwner: row.source.toLowerCase().startsWith('paymentmethod:') ? 'external:bank' : row.source,
    destOwner: ledgerOwner(dest),
    chainOwner: dest.kind === 'chain' ? ledgerOwner(dest) : null,
    sourceCurrency: row.source_currency,
    destCurrency: row.dest_currency,
    sourceAmount: new Money(row.source_amount),
    sourceAmountWithoutFees: new Money(row.source_amount_without_fees),
    destAmount: new Money(row.dest_amount),
    networkFee: new Money(row.network_fee),
    houseKeepsNetworkFee: dest.kind === 'chain' && chainBooksGas(ctx, dest.chain),
  });
}

/** A transfer settled at creation: its legs (postings.ts). */
export function settlementEntry(
  ctx: Pick<ChainsDeps, 'chains'>,
  p: PreparedTransfer,
  fresh: NewTransfer,
): NewEntry {
  return {
    kind: TRANSFER_ENTRY_KIND,
    reference: `transfer:${fresh.id}`,
    postings: transferPostings(ctx, fresh, p.dest),
  };
}

/** The partner-facing error for a creating statement's refusal: a taken customId, an overdraft. */
export function creationRefusal(error: unknown): unknown {
  const pgError = error as { code?: string; constraint?: string };
  if (pgError.code === '23505' && pgError.constraint === 'transfers_custom_id')
    return transferErrors.customIdTaken();
  return ledgerRefusal(error);
}
