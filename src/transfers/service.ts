import type { Network } from '../chains/addresses.ts';
import { requestChainSend } from '../chains/port.ts';
import type { Scope } from '../identity/types.ts';
import { combinedEntries, entryArguments, settleHold } from '../ledger/service.ts';
import type { Queryable, Tx } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { Money } from '../platform/money.ts';
import {
  confirmedHistory,
  creationCallbacks,
  creationHold,
  creationRefusal,
  newTransferRow,
  settlementEntry,
  settlesAtOnce,
  TRANSFER_ENTRY_KIND,
  transferPostings,
} from './creation.ts';
import type { TransfersDeps } from './deps.ts';
import { transferErrors } from './errors.ts';
import { checkPartiesStanding, maySettleFor, type Party, parseParty } from './parties.ts';
import type { TransferListQuery } from './schemas.ts';
import { createSettledTogether } from './settled-batches.ts';
import {
  changeStatus,
  findTransfer,
  insertSettledTransfers,
  insertTransferWith,
  type NewTransfer,
  pageTransfers,
  type TransferRow,
} from './store.ts';
import type { PreparedTransfer } from './transfer-request.ts';
import { type TransferView, transferView } from './view.ts';

/** What a scope may see: a masqueraded user its own transfers, a sub-account its own, a master all of its partner's. */
export function visibleTo(scope: Scope): string | null {
  if (scope.userId) return `user:${scope.userId}`;
  return scope.accountId === scope.partnerId ? null : `account:${scope.accountId}`;
}

export function partiesOf(row: TransferRow, network: Network): { source: Party; dest: Party } {
  return { source: parseParty(row.source, 'source', network), dest: parseParty(row.dest, 'dest', network) };
}

/** A withdrawal waits for the chain (PENDING); a book transfer is done in the same transaction. */
async function queueChainSend(ctx: TransfersDeps, tx: Tx, row: NewTransfer, dest: Party) {
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

/** An autoConfirmed withdrawal also queues its chain send: two writers, so a transaction. */
export function sendsOnChain(p: PreparedTransfer): boolean {
  return settlesAtOnce(p) && p.dest.kind === 'chain';
}

/**
 * POST /v3/transfers. `tx`: the caller's transaction (an Idempotency-Key's, or the one a
 * withdrawal needs, see sendsOnChain); without one, a book transfer with autoConfirm is written
 * together with other requests' (settled-batches.ts) and anything else by one statement of its
 * own. Either way the parties' standing is read first, then one statement writes the row with
 * its effects: PREVIEW moves nothing; UNCONFIRMED holds sourceAmount until confirm or expiry;
 * autoConfirm settles at once, the ledger entry last, right before the commit, so the source
 * balance row stays locked only that long (which bounds transfers drawing on one hot balance).
 */
export async function createTransfer(
  ctx: TransfersDeps,
  scope: Scope,
  prepared: PreparedTransfer,
  tx?: Tx,
): Promise<TransferView> {
  if (!tx && sendsOnChain(prepared))
    throw new Error('an autoConfirmed withdrawal is created in a transaction');
  if (!tx && settlesAtOnce(prepared)) return createSettledTogether(ctx, scope, prepared);
  const q = tx ?? ctx.db;
  await checkPartiesStanding(q, scope.partnerId, prepared.source, prepared.dest);
  const fresh = newTransferRow(ctx, scope, prepared, newId('TF'));
  if (tx && sendsOnChain(prepared)) await queueChainSend(ctx, tx, fresh, prepared.dest);
  try {
    if (settlesAtOnce(prepared)) {
      const settled = { row: fresh, callbacks: creationCallbacks(ctx, scope, prepared, fresh) };
      const entry = entryArguments(settlementEntry(prepared, fresh));
      await insertSettledTransfers(q, [settled], combinedEntries([entry]));
    } else {
      await insertTransferWith(q, fresh, {
        hold: fresh.status === 'UNCONFIRMED' ? creationHold(prepared, fresh) : null,
        callbacks: fresh.status === 'PREVIEW' ? null : creationCallbacks(ctx, scope, prepared, fresh),
      });
    }
  } catch (error) {
    throw creationRefusal(error);
  }
  return transferView(fresh);
}

/**
 * POST /v3/transfers/{id}/confirm: settles the hold with the quote locked at creation. Lock
 * order (every path): transfer row, then its hold, then balances in sorted order.
 */
export async function confirmTransfer(
  ctx: TransfersDeps,
  tx: Tx,
  scope: Scope,
  id: string,
): Promise<TransferView> {
  const row = await findTransfer(tx, scope.partnerId, id, visibleTo(scope), true);
  if (!row) throw transferErrors.notFound();
  if (!maySettleFor(scope, row.source)) throw transferErrors.notThePayer();
  if (row.status !== 'UNCONFIRMED') throw transferErrors.notUnconfirmed(row.status);
  const nowMs = ctx.clock.nowMs();
  if (row.expires_at.getTime() <= nowMs) throw transferErrors.expired();
  const { source, dest } = partiesOf(row, ctx.chains.network);
  await checkPartiesStanding(tx, scope.partnerId, source, dest);
  await queueChainSend(ctx, tx, row, dest);
  await settleHold(tx, row.hold_id!, {
    kind: TRANSFER_ENTRY_KIND,
    reference: `transfer:${row.id}`,
    postings: transferPostings(row, dest),
  });
  const updated = await changeStatus(tx, row.id, {
    status: dest.kind === 'chain' ? 'PENDING' : 'COMPLETED',
    history: confirmedHistory(dest, nowMs),
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
