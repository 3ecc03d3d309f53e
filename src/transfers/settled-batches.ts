import type { Scope } from '../identity/types.ts';
import { combinedEntries, type EntryArguments, entryArguments } from '../ledger/service.ts';
import { GroupedCalls, perContext } from '../platform/db/grouped-writer.ts';
import { newId } from '../platform/ids.ts';
import {
  creationCallbacks,
  creationRefusal,
  newTransferRow,
  settlementEntry,
  settlesAtOnce,
} from './creation.ts';
import type { TransfersDeps } from './deps.ts';
import { partiesStandingRefusals } from './parties.ts';
import { insertSettledTransfers, type SettledTransfer } from './store.ts';
import type { PreparedTransfer } from './transfer-request.ts';
import { type TransferView, transferView } from './view.ts';

/**
 * Book transfers settled at creation (autoConfirm to an account or user) that need no
 * transaction of the caller's (no Idempotency-Key), from concurrent requests, written together
 * like the masquerade audit rows (platform/db/grouped-writer.ts): per group, one standing read
 * per partner and one statement for all the rows, entries and callbacks, with one commit,
 * instead of two round trips and a commit for each. Each request is answered once the statement
 * that carries its transfer has committed.
 *
 * The statement is all or nothing. When it is refused (one transfer overdraws, reuses a
 * customId, or anything else PostgreSQL answers with an error) nothing of it was written, so
 * GroupedCalls writes each transfer of the group on its own (its standing read again too), and
 * each request gets its own answer. A failure without an answer from PostgreSQL (the connection
 * dropped) leaves the outcome unknown, so every request of the group gets that error, as a lone
 * request would. Balance rows are locked in (owner, currency) order across the whole group
 * (ledger_post_entries), so groups and single transfers never deadlock.
 */

/** Statement size bound: a group of more waits for the next one. */
const MAX_GROUP = 100;

interface Pending {
  scope: Scope;
  prepared: PreparedTransfer;
  settled: SettledTransfer;
  entry: EntryArguments;
}

class SettledBatches {
  /** Each transfer's standing refusal (then it was not written), or undefined once written. */
  private readonly calls = new GroupedCalls<Pending, unknown>((group) => this.write(group), {
    maxGroup: MAX_GROUP,
  });

  constructor(private readonly ctx: TransfersDeps) {}

  async create(scope: Scope, prepared: PreparedTransfer): Promise<TransferView> {
    if (!settlesAtOnce(prepared) || prepared.dest.kind === 'chain') {
      throw new Error('settled batches take book transfers with autoConfirm only');
    }
    const row = newTransferRow(this.ctx, scope, prepared, newId('TF'));
    const pending: Pending = {
      scope,
      prepared,
      settled: { row, callbacks: creationCallbacks(this.ctx, scope, prepared, row) },
      entry: entryArguments(settlementEntry(prepared, row)),
    };
    let refusal: unknown;
    try {
      refusal = await this.calls.call(pending);
    } catch (error) {
      throw creationRefusal(error);
    }
    if (refusal !== undefined) throw refusal;
    return transferView(row);
  }

  /** The group's standing refusals; the transfers without one written in one statement. */
  private async write(group: Pending[]): Promise<unknown[]> {
    const refusals = await partiesStandingRefusals(
      this.ctx.db,
      group.map(({ scope, prepared }) => ({
        partnerId: scope.partnerId,
        source: prepared.source,
        dest: prepared.dest,
      })),
    );
    const ready = group.filter((_pending, index) => refusals[index] === undefined);
    if (ready.length > 0) await this.insert(ready);
    return refusals;
  }

  private insert(group: Pending[]): Promise<void> {
    return insertSettledTransfers(
      this.ctx.db,
      group.map((pending) => pending.settled),
      combinedEntries(group.map((pending) => pending.entry)),
    );
  }
}

const batchesOf = perContext((ctx: TransfersDeps) => new SettledBatches(ctx));

/**
 * Creates a book transfer with autoConfirm outside any transaction of the caller's, together
 * with the ones other requests are creating at the same moment (see above).
 */
export function createSettledTogether(
  ctx: TransfersDeps,
  scope: Scope,
  prepared: PreparedTransfer,
): Promise<TransferView> {
  return batchesOf(ctx).create(scope, prepared);
}
