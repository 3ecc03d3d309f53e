import { findPayment } from '../cards/index.ts';
import { documentsOfUser } from '../documents/index.ts';
import { consoleAccount } from '../identity/index.ts';
import { balancesOf, consoleHold, entriesWithPostings } from '../ledger/index.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { isId } from '../platform/ids.ts';
import {
  consoleTransfer,
  consoleTransfersOfAccount,
  consoleTransfersOfParty,
  historyView,
} from '../transfers/index.ts';
import { consoleScopeEvents, consoleScopes, consoleUser, consoleUsersOfAccount } from '../users/index.ts';
import { consoleOrdersOfAccount, consoleOrdersOfUser, findOrder } from '../wallet-orders/index.ts';
import { callbacksOf } from './callbacks.ts';
import { type Page, pageOf } from './paging.ts';

/**
 * The whole timeline of an account, a user, a card order or a transfer, for the console's detail
 * pages (docs/contract.md, decision 146): each a handful of index reads composed from the owning
 * domains' stores. Amounts stay decimal text; times are Dates the pages show in UTC ISO.
 */

/** Rows of a list section on a detail page; longer lists page on. */
export const SECTION_SIZE = 25;
/** A timeline's entries, callbacks and events: far more than any one order or transfer makes. */
const TIMELINE_LIMIT = 200;

export interface StatusEvent {
  at: Date;
  status: string;
  detail: string;
}

export interface AccountCursors {
  users?: string | undefined;
  orders?: string | undefined;
  transfers?: string | undefined;
}

export async function accountTimeline(q: Queryable, id: string, cursors: AccountCursors) {
  const account = isId(id, 'AC') ? await consoleAccount(q, id) : undefined;
  if (!account) return undefined;
  const [users, orders, transfers, balances] = await Promise.all([
    consoleUsersOfAccount(q, account.partner_id, id, cursors.users, SECTION_SIZE + 1),
    consoleOrdersOfAccount(q, id, cursors.orders, SECTION_SIZE + 1),
    consoleTransfersOfAccount(q, account.partner_id, id, cursors.transfers, SECTION_SIZE + 1),
    balancesOf(q, `account:${id}`),
  ]);
  return {
    account,
    users: pageOf(users, SECTION_SIZE),
    orders: pageOf(orders, SECTION_SIZE),
    transfers: pageOf(transfers, SECTION_SIZE),
    balances: balanceLines(balances),
  };
}

export async function userTimeline(q: Queryable, id: string) {
  const user = isId(id, 'US') ? await consoleUser(q, id) : undefined;
  if (!user) return undefined;
  const [scopes, events, documents, orders, transfers, balances] = await Promise.all([
    consoleScopes(q, id),
    consoleScopeEvents(q, id, TIMELINE_LIMIT),
    documentsOfUser(q, id, TIMELINE_LIMIT),
    consoleOrdersOfUser(q, id, SECTION_SIZE),
    consoleTransfersOfParty(q, user.partner_id, `user:${id}`, SECTION_SIZE),
    balancesOf(q, `user:${id}`),
  ]);
  return { user, scopes, events, documents, orders, transfers, balances: balanceLines(balances) };
}

export async function orderTimeline(q: Queryable, id: string) {
  const order = isId(id, 'WO') ? await findOrder(q, id) : undefined;
  if (!order) return undefined;
  const [payment, entries, hold, callbacks] = await Promise.all([
    findPayment(q, id),
    entriesWithPostings(q, `order:${id}`, TIMELINE_LIMIT),
    order.hold_id === null ? undefined : consoleHold(q, order.hold_id),
    callbacksOf(q, `order:${id}`, TIMELINE_LIMIT),
  ]);
  return { order, payment, entries, hold, callbacks, history: orderHistory(order, callbacks) };
}

export async function transferTimeline(q: Queryable, id: string) {
  const transfer = isId(id, 'TF') ? await consoleTransfer(q, id) : undefined;
  if (!transfer) return undefined;
  const [entries, hold, callbacks] = await Promise.all([
    entriesWithPostings(q, `transfer:${id}`, TIMELINE_LIMIT),
    transfer.hold_id === null ? undefined : consoleHold(q, transfer.hold_id),
    callbacksOf(q, `transfer:${id}`, TIMELINE_LIMIT),
  ]);
  const history: StatusEvent[] = transfer.status_history.map((stored) => {
    const entry = historyView(id, stored);
    return { at: new Date(entry.createdAt), status: entry.state, detail: entry.statusDetail };
  });
  return { transfer, entries, hold, callbacks, history };
}

/**
 * An order keeps no status history of its own: its steps are its timestamps (created, captured,
 * finished) and the status each of its webhooks reported, in time order.
 */
function orderHistory(
  order: NonNullable<Awaited<ReturnType<typeof findOrder>>>,
  callbacks: Awaited<ReturnType<typeof callbacksOf>>,
): StatusEvent[] {
  const events: StatusEvent[] = [
    { at: order.created_at, status: 'RUNNING_CHECKS', detail: 'Order created, card authorised' },
  ];
  if (order.captured_at) events.push({ at: order.captured_at, status: 'CAPTURED', detail: 'Card captured' });
  if (order.completed_at)
    events.push({
      at: order.completed_at,
      status: order.status,
      detail: order.error_message ?? (order.status === 'FAILED' ? 'Order failed' : 'Order finished'),
    });
  for (const callback of callbacks) {
    const status = reportedStatus(callback.body);
    if (status) events.push({ at: callback.createdAt, status, detail: `Webhook ${callback.id} queued` });
  }
  return events.sort((a, b) => a.at.getTime() - b.at.getTime());
}

function reportedStatus(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { orderStatus?: unknown };
    return typeof parsed.orderStatus === 'string' ? parsed.orderStatus : undefined;
  } catch {
    return undefined;
  }
}

function balanceLines(balances: Awaited<ReturnType<typeof balancesOf>>) {
  return Object.keys(balances.totalBalances)
    .sort()
    .map((currency) => ({
      currency,
      total: balances.totalBalances[currency]!.toFixed(),
      available: (balances.availableBalances[currency] ?? balances.totalBalances[currency]!).toFixed(),
    }));
}

export type { Page };
