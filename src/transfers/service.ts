import { notifyTransferCreated } from '../callbacks/service.ts';
import { chainsForCurrency, type Network, networkFor } from '../chains/addresses.ts';
import { requestChainSend } from '../chains/port.ts';
import type { Scope } from '../identity/types.ts';
import { placeHold, postEntry, settleHold } from '../ledger/service.ts';
import type { AppContext } from '../platform/context.ts';
import type { Queryable, Tx } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { Money } from '../platform/money.ts';
import { transferErrors } from './errors.ts';
import { checkPartiesStanding, ledgerOwner, type Party, parseParty } from './parties.ts';
import { settlementPostings } from './postings.ts';
import type { TransferListQuery } from './schemas.ts';
import { historyEntry, type StatusHistoryEntry } from './status-history.ts';
import {
  changeStatus,
  findTransfer,
  insertTransfer,
  type NewTransfer,
  pageTransfers,
  type TransferRow,
  type TransferStatus,
} from './store.ts';
import type { PreparedTransfer } from './transfer-request.ts';
import { type TransferView, transferView } from './view.ts';

const MINUTE_MS = 60_000;
export const TRANSFER_ENTRY_KIND = 'transfer';

/** facts §5: quotes hold 15 minutes without exchange or between fiat currencies, 10 with crypto. */
export function quoteLockMs(sourceCurrency: string, destCurrency: string): number {
  const crypto = chainsForCurrency(sourceCurrency).length > 0 || chainsForCurrency(destCurrency).length > 0;
  return (sourceCurrency !== destCurrency && crypto ? 10 : 15) * MINUTE_MS;
}

/** What a scope may see: a masqueraded user its own transfers, a sub-account its own, a master all of its partner's. */
export function visibleTo(scope: Scope): string | null {
  if (scope.userId) return `user:${scope.userId}`;
  return scope.accountId === scope.partnerId ? null : `account:${scope.accountId}`;
}

export function partiesOf(row: TransferRow, network: Network): { source: Party; dest: Party } {
  return { source: parseParty(row.source, 'source', network), dest: parseParty(row.dest, 'dest', network) };
}

/** The transfer's settlement entry, recomputed from the stored figures (also what a reversal negates). */
export function transferPostings(row: TransferRow, dest: Party) {
  return settlementPostings({
    sourceOwner: row.source,
    destOwner: ledgerOwner(dest),
    chainOwner: dest.kind === 'chain' ? ledgerOwner(dest) : null,
    sourceCurrency: row.source_currency,
    destCurrency: row.dest_currency,
    sourceAmount: new Money(row.source_amount),
    sourceAmountWithoutFees: new Money(row.source_amount_without_fees),
    destAmount: new Money(row.dest_amount),
    networkFee: new Money(row.network_fee),
  });
}

/** A withdrawal waits for the chain (PENDING); a book transfer is done in the same transaction. */
async function queueChainSend(ctx: AppContext, tx: Tx, row: TransferRow, dest: Party) {
  if (dest.kind !== 'chain') return;
  await requestChainSend(ctx, tx, {
    reference: `transfer:${row.id}`,
    chain: dest.chain,
    address: dest.address,
    currency: row.dest_currency,
    amount: new Money(row.dest_amount),
    networkFee: new Money(row.network_fee),
  });
}

function confirmedHistory(id: string, dest: Party, atMs: number): StatusHistoryEntry[] {
  const pending = historyEntry(id, 'PENDING', atMs);
  return dest.kind === 'chain' ? [pending] : [pending, historyEntry(id, 'COMPLETED', atMs)];
}

function isCustomIdConflict(error: unknown): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError.code === '23505' && pgError.constraint === 'transfers_custom_id';
}

function newTransferRow(ctx: AppContext, scope: Scope, p: PreparedTransfer, id: string): NewTransfer {
  const nowMs = ctx.clock.nowMs();
  const status: TransferStatus = p.preview
    ? 'PREVIEW'
    : !p.autoConfirm
      ? 'UNCONFIRMED'
      : p.dest.kind === 'chain'
        ? 'PENDING'
        : 'COMPLETED';
  const history =
    status === 'PREVIEW'
      ? [historyEntry(id, 'PREVIEW', nowMs)]
      : [historyEntry(id, 'INITIATED', nowMs), ...(p.autoConfirm ? confirmedHistory(id, p.dest, nowMs) : [])];
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

async function insertOrConflict(tx: Tx, row: NewTransfer): Promise<TransferRow> {
  try {
    return await insertTransfer(tx, row);
  } catch (error) {
    if (isCustomIdConflict(error)) throw transferErrors.customIdTaken();
    throw error;
  }
}

/**
 * POST /v3/transfers, in the caller's (idempotent) transaction. PREVIEW moves nothing;
 * UNCONFIRMED holds sourceAmount until confirm or expiry; autoConfirm settles at once. The
 * ledger entry is written last: the source balance row stays locked only until commit, which
 * is what bounds the rate of transfers drawing on one hot balance.
 */
export async function createTransfer(
  ctx: AppContext,
  tx: Tx,
  scope: Scope,
  prepared: PreparedTransfer,
): Promise<TransferView> {
  await checkPartiesStanding(tx, scope.partnerId, prepared.source, prepared.dest);
  const fresh = newTransferRow(ctx, scope, prepared, newId('TF'));
  if (fresh.status === 'UNCONFIRMED') {
    fresh.hold_id = await placeHold(tx, {
      owner: fresh.source,
      currency: fresh.source_currency,
      amount: prepared.quote.sourceAmount,
      expiresAtMs: fresh.expires_at.getTime(),
      reference: `transfer:${fresh.id}`,
    });
  }
  const row = await insertOrConflict(tx, fresh);
  if (row.status === 'PREVIEW') return transferView(row);
  await notifyTransferCreated(ctx, tx, {
    accountId: scope.accountId,
    partnerId: scope.partnerId,
    transferId: row.id,
    owner: row.owner,
    // Subscriptions to either party (e.g. the receiving user) are matched too.
    parties: [row.source, row.dest],
    ...(prepared.notifyUrl !== undefined ? { notifyUrl: prepared.notifyUrl } : {}),
  });
  if (row.status !== 'UNCONFIRMED') {
    await queueChainSend(ctx, tx, row, prepared.dest);
    await postEntry(tx, {
      kind: TRANSFER_ENTRY_KIND,
      reference: `transfer:${row.id}`,
      postings: transferPostings(row, prepared.dest),
    });
  }
  return transferView(row);
}

/**
 * POST /v3/transfers/{id}/confirm: settles the hold with the quote locked at creation. Lock
 * order (every path): transfer row, then its hold, then balances in sorted order.
 */
export async function confirmTransfer(
  ctx: AppContext,
  tx: Tx,
  scope: Scope,
  id: string,
): Promise<TransferView> {
  const row = await findTransfer(tx, scope.partnerId, id, visibleTo(scope), true);
  if (!row) throw transferErrors.notFound();
  // A masqueraded user may see transfers it receives, but only the payer confirms.
  if (scope.userId && row.source !== `user:${scope.userId}`) throw transferErrors.notYourSource();
  if (row.status !== 'UNCONFIRMED') throw transferErrors.notUnconfirmed(row.status);
  const nowMs = ctx.clock.nowMs();
  if (row.expires_at.getTime() <= nowMs) throw transferErrors.expired();
  const { source, dest } = partiesOf(row, networkFor(ctx.config.env));
  await checkPartiesStanding(tx, scope.partnerId, source, dest);
  await queueChainSend(ctx, tx, row, dest);
  await settleHold(tx, row.hold_id!, {
    kind: TRANSFER_ENTRY_KIND,
    reference: `transfer:${row.id}`,
    postings: transferPostings(row, dest),
  });
  const updated = await changeStatus(tx, row.id, {
    status: dest.kind === 'chain' ? 'PENDING' : 'COMPLETED',
    history: confirmedHistory(row.id, dest, nowMs),
    at: new Date(nowMs),
    completed: dest.kind !== 'chain',
  });
  return transferView(updated);
}

export async function getTransfer(q: Queryable, scope: Scope, id: string): Promise<TransferView> {
  const row = await findTransfer(q, scope.partnerId, id, visibleTo(scope));
  if (!row) throw transferErrors.notFound();
  return transferView(row);
}

const DEFAULT_PAGE = 25;

/** GET /v3/transfers: `{data, position, recordsTotal, recordsFiltered}`, newest first. */
export async function listTransfers(q: Queryable, scope: Scope, query: TransferListQuery) {
  const offset = query.offset ?? 0;
  const limit = query.limit ?? query.length ?? DEFAULT_PAGE;
  const { rows, total } = await pageTransfers(q, scope.partnerId, visibleTo(scope), offset, limit);
  return { data: rows.map(transferView), position: offset, recordsTotal: total, recordsFiltered: total };
}
