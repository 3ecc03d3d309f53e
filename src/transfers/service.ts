import { type Network, requestChainSend } from '../chains/index.ts';
import type { Scope } from '../identity/index.ts';
import { entryArguments, settleHold } from '../ledger/index.ts';
import { GroupedTransactions, TransactionSteps } from '../platform/db/grouped-transactions.ts';
import type { Db, Queryable, Tx } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { Money } from '../platform/money.ts';
import { confirmBankTransfer, createBankTransfer, payerOf } from './bank-transfers.ts';
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
import type { TransferRulesDeps } from './deps.ts';
import { transferErrors } from './errors.ts';
import {
  checkPartiesStanding,
  drawerOf,
  maySettleFor,
  movesThroughBank,
  type Party,
  parseParty,
  partiesStanding,
} from './parties.ts';
import type { TransferListQuery } from './schemas.ts';
import {
  changeStatus,
  findListedTransferById,
  findTransfer,
  findTransferByCustomId,
  insertSettled,
  insertTransferWith,
  type NewTransfer,
  pageTransfers,
  type TransferRow,
  transferPageAfter,
} from './store.ts';
import { type TrackingView, trackingView } from './track-view.ts';
import type { PreparedTransfer } from './transfer-request.ts';
import { type TransferView, transferListItemView, transferView } from './view.ts';

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

/**
 * An autoConfirmed withdrawal also queues its chain send: two writers, so a transaction. So does
 * every bank transfer (its rail request, its hold or pending entry).
 */
export function needsTransaction(p: PreparedTransfer): boolean {
  return (settlesAtOnce(p) && p.dest.kind === 'chain') || movesThroughBank(p);
}

/**
 * POST /v3/transfers. `tx`: the caller's transaction (an Idempotency-Key's, or the one a
 * withdrawal needs, see needsTransaction). A book transfer with autoConfirm is written by
 * createSettledTransfer: on `tx`, or without one together with other requests' (one standing
 * read and one insert for them all, createSettledTransfers). Anything else reads the parties'
 * standing, then one statement writes the row with its effects: PREVIEW moves nothing;
 * UNCONFIRMED holds sourceAmount until confirm or expiry; an autoConfirmed withdrawal settles at
 * once and queues its chain send.
 */
export async function createTransfer(
  ctx: TransfersDeps,
  scope: Scope,
  prepared: PreparedTransfer,
  tx?: Tx,
): Promise<TransferView> {
  if (movesThroughBank(prepared)) {
    if (!tx) throw new Error('a bank transfer is created in a transaction');
    return createBankTransfer(ctx, tx, scope, prepared);
  }
  if (settlesAtOnce(prepared)) {
    if (tx) return createSettledTransfer(ctx, TransactionSteps.alone(tx), { scope, prepared, tx });
    return ctx.settledTransfers.call({ scope, prepared });
  }
  const q = tx ?? ctx.db;
  await checkPartiesStanding(q, scope.partnerId, prepared.source, prepared.dest, drawerOf(scope));
  const fresh = newTransferRow(ctx, scope, prepared, newId('TF'));
  try {
    await insertTransferWith(q, fresh, {
      hold: fresh.status === 'UNCONFIRMED' ? creationHold(prepared, fresh) : null,
      callbacks: fresh.status === 'PREVIEW' ? null : creationCallbacks(ctx, scope, prepared, fresh),
    });
  } catch (error) {
    throw creationRefusal(error);
  }
  return transferView(fresh);
}

export interface SettledRequest {
  scope: Scope;
  prepared: PreparedTransfer;
  /** The caller's transaction, which a withdrawal's chain send is queued in. */
  tx?: Tx;
}

export type SettledTransfers = GroupedTransactions<SettledRequest, TransferView>;

/** What transfer creation is given: the rules' deps and the grouping of settled transfers. */
export interface TransfersDeps extends TransferRulesDeps {
  settledTransfers: SettledTransfers;
}

/**
 * A transfer settled at creation (autoConfirm): the parties' standing read, then one statement
 * writes its row, its callbacks and its ledger entry, the entry last so the balance rows stay
 * locked the shortest time (which bounds transfers drawing on one hot balance). A withdrawal
 * also queues its chain send first, in the caller's transaction. A book transfer's only write is
 * that last statement, so grouped it needs no transaction: a refusal before it leaves nothing
 * to undo.
 */
export async function createSettledTransfer(
  ctx: TransfersDeps,
  steps: TransactionSteps,
  { scope, prepared, tx }: SettledRequest,
): Promise<TransferView> {
  const { source, dest } = prepared;
  const refusal = await steps.run(partiesStanding, {
    partnerId: scope.partnerId,
    source,
    dest,
    drawer: drawerOf(scope),
  });
  if (refusal !== undefined) throw refusal;
  const row = newTransferRow(ctx, scope, prepared, newId('TF'));
  if (dest.kind === 'chain') {
    if (!tx) throw new Error('an autoConfirmed withdrawal is created in a transaction');
    await queueChainSend(ctx, tx, row, dest);
  }
  const settled = { row, callbacks: creationCallbacks(ctx, scope, prepared, row) };
  try {
    await steps.run(insertSettled, { settled, entry: entryArguments(settlementEntry(ctx, prepared, row)) });
  } catch (error) {
    throw creationRefusal(error);
  }
  return transferView(row);
}

/** Statement size bound: a group of more waits for the next one. */
const MAX_SETTLED_GROUP = 100;

/**
 * Settled book transfers of concurrent requests that bring no transaction (no Idempotency-Key),
 * written together: per group one standing read and one insert of every row, entry and callback,
 * each statement committing on its own, instead of two round trips and a commit each. Balance
 * rows are locked in (owner, currency) order across the whole insert (ledger_post_entries), so
 * groups and single transfers never deadlock; the ledger checks each entry in turn, so payments
 * that only cancel out are refused as they would be one after the other.
 */
export function createSettledTransfers(db: Db, services: () => TransfersDeps): SettledTransfers {
  return new GroupedTransactions(
    db,
    (steps, request: SettledRequest) => createSettledTransfer(services(), steps, request),
    { maxGroup: MAX_SETTLED_GROUP, transactional: false },
  );
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
  // A wallet's payer is its owner, which the standing read below knows (wallet-parties.ts).
  const fromWallet = row.source.startsWith('wallet:');
  if (!fromWallet && !maySettleFor(scope, await payerOf(ctx, tx, row))) throw transferErrors.notThePayer();
  if (row.status !== 'UNCONFIRMED') throw transferErrors.notUnconfirmed(row.status);
  const nowMs = ctx.clock.nowMs();
  if (row.expires_at.getTime() <= nowMs) throw transferErrors.expired();
  const { source, dest } = partiesOf(row, ctx.chains.network);
  await checkPartiesStanding(tx, scope.partnerId, source, dest, drawerOf(scope));
  if (movesThroughBank({ source, dest })) return confirmBankTransfer(ctx, tx, scope, row, { source, dest });
  await queueChainSend(ctx, tx, row, dest);
  await settleHold(tx, row.hold_id!, {
    kind: TRANSFER_ENTRY_KIND,
    reference: `transfer:${row.id}`,
    postings: transferPostings(ctx, row, dest),
  });
  const updated = await changeStatus(tx, row.id, {
    status: dest.kind === 'chain' ? 'PENDING' : 'COMPLETED',
    history: confirmedHistory(dest.kind === 'chain', nowMs),
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

/** GET /v2/transfer?customId=: the partner's transfer of that customId the scope can see. */
export async function getTransferByCustomId(
  q: Queryable,
  scope: Scope,
  customId: string,
): Promise<TransferView> {
  const row = await findTransferByCustomId(q, scope.partnerId, customId, visibleTo(scope));
  if (!row) throw transferErrors.notFound();
  return transferView(row);
}

/** GET /v2/transfer/{id}/track, without credentials: the tracker's impersonal view (track-view.ts). */
export async function trackTransfer(q: Queryable, id: string): Promise<TrackingView> {
  const row = await findListedTransferById(q, id);
  if (!row) throw transferErrors.notFound();
  return trackingView(row);
}

const DEFAULT_PAGE = 25;

/** GET /v3/transfers: `{data, position, recordsTotal, recordsFiltered}`, newest first. */
export async function listTransfers(q: Queryable, scope: Scope, query: TransferListQuery) {
  const offset = query.offset ?? 0;
  const limit = query.limit ?? query.length ?? DEFAULT_PAGE;
  const { rows, total } = await pageTransfers(q, scope.partnerId, visibleTo(scope), offset, limit);
  return {
    data: rows.map(transferListItemView),
    position: offset,
    recordsTotal: total,
    recordsFiltered: total,
  };
}

/** GET /v3/transfers' list by the same visibility, after the transfer `after` (keyset paging, no count). */
export async function transfersAfter(q: Queryable, scope: Scope, after: string | undefined, limit: number) {
  return (await transferPageAfter(q, scope.partnerId, visibleTo(scope), after, limit)).map(
    transferListItemView,
  );
}
