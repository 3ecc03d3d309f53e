import type { AuthorizationStep } from '../cards/processor.ts';
import { authorizeCards } from '../cards/service.ts';
import { recordSpendsTogether, releaseSpends } from '../limits/service.ts';
import { consumeReservations, unconsume } from '../orders/service.ts';
import { TransactionsBegunAhead } from '../platform/db/begun-ahead.ts';
import { GroupedCalls, perContext } from '../platform/db/grouped-writer.ts';
import type { Tx } from '../platform/db/pool.ts';
import { ApiError } from '../platform/errors.ts';
import {
  cardAuthorizationOf,
  draftOrder,
  type OrderDraft,
  orderWrite,
  type PreparedOrder,
  placeWalletOrderAlone,
  spendOf,
} from './create.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { jobsOfNewOrders } from './jobs.ts';
import { insertOrders } from './store.ts';
import { type WalletOrderBody, walletOrderView } from './view.ts';

/**
 * Card orders placed together: the orders that concurrent requests (without an Idempotency-Key)
 * place at the same moment go through the steps of storeWalletOrder as one group, in one
 * transaction of five statements and COMMIT (its BEGIN sent ahead, while the groups before it
 * ran), instead of eight round trips each (on this machine a round trip costs both processes more
 * CPU than most statements' work; bench/FINDINGS.md).
 *
 * Every rule is the single order's: the reservation used once (used by the group, and usable
 * again if its order does not go ahead), the limits checked and the spend recorded under the
 * spend keys' locks, the card authorised before the order is written. Orders of one group never
 * share a spend key or a reservation (GroupedCalls keeps the next one waiting), so each order's limits are
 * exactly what they would be alone. Each order gets its own answer: its WalletOrder or the error
 * that refused it, nothing of it written.
 *
 * An order goes on alone (its own transaction, placeWalletOrderAlone) after its group when the
 * group cannot settle it: its reservation locked no rate (the quote is made outside any
 * transaction), or the card processor did not answer within GROUP_AUTHORIZATION_WAIT_MS (it gets
 * the full processor timeout alone). When PostgreSQL refuses the group's statements (one order
 * can take the others down), the transaction rolled back whole and GroupedCalls runs each of its
 * orders again as a group of its own, its keys still held, so only the order at fault is refused.
 * A failure without an answer from PostgreSQL leaves the outcome unknown, so every order of that
 * group gets the error, as a lone order would.
 */

/** Statement size bound: more orders wait for the next group. */
const MAX_GROUP = 100;

/**
 * Two groups at once: while one waits between its statements, the other's run (1,264 against
 * 1,117 orders/s with one, three no better: bench/FINDINGS.md). They never share a key.
 */
const GROUPS_IN_FLIGHT = 2;

/**
 * How long a group waits for the card processor. The group's locks and its place in line are
 * held meanwhile, so a slow issuer must not hold up everyone: an order still waiting then is
 * abandoned by the group and placed alone. (The sandbox answers at once but for its slow card.)
 */
export const GROUP_AUTHORIZATION_WAIT_MS = 250;

type Outcome = { order: WalletOrderBody } | { refused: unknown } | { alone: true };

const ALONE: Outcome = { alone: true };

/** What an order locks besides the external:card stripe: its reservation and its spend keys. */
function keysOf(prepared: PreparedOrder): string[] {
  return [`reservation:${prepared.request.reservationId}`, ...prepared.spendKeys];
}

class OrderGroups {
  private readonly calls = new GroupedCalls<PreparedOrder, Outcome>((group) => this.run(group), {
    maxGroup: MAX_GROUP,
    inFlight: GROUPS_IN_FLIGHT,
    keysOf,
  });

  /** The next groups' BEGIN is sent while the current ones run (one round trip less each). */
  private readonly transactions: TransactionsBegunAhead;

  constructor(private readonly ctx: WalletOrdersDeps) {
    this.transactions = new TransactionsBegunAhead(ctx.db, GROUPS_IN_FLIGHT);
  }

  async place(prepared: PreparedOrder): Promise<WalletOrderBody> {
    const outcome = await this.calls.call(prepared);
    if ('order' in outcome) return outcome.order;
    if ('refused' in outcome) throw outcome.refused;
    return placeWalletOrderAlone(this.ctx, prepared);
  }

  close(): Promise<void> {
    return this.transactions.close();
  }

  private run(group: PreparedOrder[]): Promise<Outcome[]> {
    return this.transactions.run((tx) => storeOrderGroup(this.ctx, tx, group));
  }
}

/**
 * One group's orders, in its transaction: storeWalletOrder's steps, each for all of them at once.
 * Reservations are used and spend recorded before the card processor answers (as a lone order
 * does, whose rollback undoes them): an order that does not go ahead gets both undone before the
 * group commits, which costs statements only in a group with such an order.
 */
async function storeOrderGroup(ctx: WalletOrdersDeps, tx: Tx, group: PreparedOrder[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(group.length);
  const { drafts, used } = await draftOrders(ctx, tx, group, outcomes);
  const fitting = await withinLimits(ctx, tx, drafts, outcomes);
  const authorized = await authorizedOrders(ctx, tx, fitting, outcomes);
  await undoUnplaced(tx, { used, fitting, authorized });
  if (authorized.length === 0) return outcomes;
  const writes = authorized.map(({ draft, step }) => orderWrite(ctx, draft, step));
  const rows = await insertOrders(tx, writes, jobsOfNewOrders(writes), authorized[0]!.draft.nowMs);
  authorized.forEach(({ index }, position) => {
    outcomes[index] = { order: walletOrderView(rows[position]!) };
  });
  return outcomes;
}

/** An order of the group that got this far: its place in the group, and its draft. */
interface Drafted {
  index: number;
  draft: OrderDraft;
}

/** A reservation the group used: the place in the group of the order that used it, and its id. */
interface UsedReservation {
  index: number;
  id: string;
}

/** …and the authorization step the issuer asked for. */
interface Authorized extends Drafted {
  step: AuthorizationStep;
}

/**
 * Each order's reservation, used, and its draft; refusals and unlocked reservations set aside.
 * Also answers the ids of every reservation used, whether its order was drafted or not.
 */
async function draftOrders(
  ctx: WalletOrdersDeps,
  tx: Tx,
  group: PreparedOrder[],
  outcomes: Outcome[],
): Promise<{ drafts: Drafted[]; used: UsedReservation[] }> {
  const reservations = await consumeReservations(
    ctx,
    tx,
    group.map(({ scope, request }) => ({ scope, id: request.reservationId })),
  );
  const drafts: Drafted[] = [];
  const used: UsedReservation[] = [];
  reservations.forEach((reservation, index) => {
    if (reservation instanceof ApiError) {
      outcomes[index] = { refused: reservation };
      return;
    }
    used.push({ index, id: reservation.id });
    if (reservation.quote === null) {
      outcomes[index] = ALONE;
      return;
    }
    try {
      drafts.push({ index, draft: draftOrder(ctx, group[index]!, reservation) });
    } catch (error) {
      outcomes[index] = { refused: error };
    }
  });
  return { drafts, used };
}

/** The drafts whose amount fits every limit window, their spend recorded. */
async function withinLimits(
  ctx: WalletOrdersDeps,
  tx: Tx,
  drafts: Drafted[],
  outcomes: Outcome[],
): Promise<Drafted[]> {
  if (drafts.length === 0) return drafts;
  const refusals = await recordSpendsTogether(
    ctx,
    tx,
    drafts.map(({ draft }) => spendOf(draft)),
  );
  return drafts.filter((entry, position) => {
    const refusal = refusals[position];
    if (refusal !== undefined) outcomes[entry.index] = { refused: refusal };
    return refusal === undefined;
  });
}

/** The fitting drafts whose card the processor approved, with the step the issuer asked for. */
async function authorizedOrders(
  ctx: WalletOrdersDeps,
  tx: Tx,
  drafts: Drafted[],
  outcomes: Outcome[],
): Promise<Authorized[]> {
  if (drafts.length === 0) return [];
  const answers = await authorizeCards(
    ctx,
    tx,
    drafts.map(({ draft }) => cardAuthorizationOf(draft)),
    Math.min(GROUP_AUTHORIZATION_WAIT_MS, ctx.config.cardProcessorTimeoutMs),
  );
  const authorized: Authorized[] = [];
  answers.forEach((answer, position) => {
    const entry = drafts[position]!;
    if ('late' in answer) outcomes[entry.index] = ALONE;
    else if ('declined' in answer) outcomes[entry.index] = { refused: answer.declined };
    else authorized.push({ ...entry, step: answer.step });
  });
  return authorized;
}

/**
 * What the group's orders that will not be placed had taken: their spend (recorded for every
 * fitting order) and their reservations (used for every order whose reservation was usable), so
 * that both stay as they were before the group once it commits.
 */
async function undoUnplaced(
  tx: Tx,
  taken: { used: UsedReservation[]; fitting: Drafted[]; authorized: Authorized[] },
): Promise<void> {
  const placed = new Set(taken.authorized.map(({ index }) => index));
  const unplaced = ({ index }: { index: number }) => !placed.has(index);
  const spent = taken.fitting.filter(unplaced).map(({ draft }) => draft.orderId);
  if (spent.length > 0) await releaseSpends(tx, spent);
  const unused = taken.used.filter(unplaced).map(({ id }) => id);
  if (unused.length > 0) await unconsume(tx, unused);
}

const groupsOf = perContext((ctx: WalletOrdersDeps) => new OrderGroups(ctx));

/**
 * Places a prepared order (prepareWalletOrder) together with the ones other requests are placing
 * at the same moment; answers its WalletOrder, or throws what refused it (see above).
 */
export function placeWalletOrderTogether(
  ctx: WalletOrdersDeps,
  prepared: PreparedOrder,
): Promise<WalletOrderBody> {
  return groupsOf(ctx).place(prepared);
}

/** Gives back the connections of the transactions the groups began ahead (on the app's close). */
export function closeOrderGroups(ctx: WalletOrdersDeps): Promise<void> {
  return groupsOf(ctx).close();
}
