import { combinedEntries, entryArguments, holdsExpiringBy } from '../ledger/index.ts';
import { withTransaction } from '../platform/db/pool.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { CARD_HOLDER, captureEntry, orderOfHold } from './ledger.ts';
import { lockUncapturedOrders, markCaptured } from './store.ts';

/**
 * Captures the cards of orders whose crypto is not delivered yet (a delivery waiting for the
 * house's inventory, a slow chain) before their authorizations end (docs/contract.md, decision
 * 112): an authorization the processor lets lapse is money the house delivers for nothing. Such
 * an order is then captured but undelivered: its delivery books only the delivery entry, and its
 * failure refunds the card (transitions.ts).
 */

/** How long before its authorization ends an undelivered order is captured. */
export const CAPTURE_MARGIN_MS = 24 * 3600 * 1000;
/** How often the sweep runs: many times within the margin, so a sweep that fails is retried well within it. */
export const CAPTURE_SWEEP_EVERY_MS = 15 * 60 * 1000;
export const CAPTURE_SWEEP_JOB = 'walletOrders.captureAging';
/** Orders per sweep transaction, as the processing worker's transactions (worker.ts). */
const ORDERS_PER_SWEEP = 400;

/** One sweep: transactions of up to ORDERS_PER_SWEEP orders until none is left to capture. Answers how many it captured. */
export async function captureAgingOrders(ctx: WalletOrdersDeps): Promise<number> {
  let captured = 0;
  for (;;) {
    const batch = await captureAgingBatch(ctx);
    captured += batch.captured;
    // A short batch was the last; one that captured nothing found only orders others hold.
    if (batch.found < ORDERS_PER_SWEEP || batch.captured === 0) return captured;
  }
}

/**
 * One transaction: the card holds expiring within the margin (the hold lives as long as the
 * authorization: ledger.ts cardHoldArguments) name the candidates in one query of the pending
 * holds' index; of these, the PROCESSING orders not captured, authorized longer ago than the
 * processor's lifetime less the margin, are locked in id order (skipping those another
 * transaction holds), captured, and their capture entries settle their holds, one statement per
 * source currency. The locks come in the order onOrderDeliveries takes them: orders, then holds
 * and balances.
 */
async function captureAgingBatch(ctx: WalletOrdersDeps): Promise<{ found: number; captured: number }> {
  return withTransaction(ctx.db, async (tx) => {
    const nowMs = ctx.clock.nowMs();
    const holds = await holdsExpiringBy(tx, CARD_HOLDER, nowMs + CAPTURE_MARGIN_MS, ORDERS_PER_SWEEP);
    const orderIds = holds.flatMap((hold) => orderOfHold(hold.reference) ?? []);
    if (orderIds.length === 0) return { found: holds.length, captured: 0 };
    const authorizedBy = nowMs - (ctx.cardProcessor.authorizationLifetimeMs - CAPTURE_MARGIN_MS);
    const orders = await lockUncapturedOrders(tx, orderIds, authorizedBy);
    if (orders.length === 0) return { found: holds.length, captured: 0 };
    await ctx.cardProcessor.capture(
      tx,
      orders.map((order) => order.id),
    );
    for (const currency of new Set(orders.map((order) => order.source_currency))) {
      const inCurrency = orders.filter((order) => order.source_currency === currency);
      const captures = inCurrency.map(captureEntry);
      const booked = {
        entries: combinedEntries(captures.map((capture) => entryArguments(capture.entry))),
        holdIds: captures.map((capture) => capture.holdId),
      };
      await markCaptured(
        tx,
        inCurrency.map((order) => order.id),
        booked,
        nowMs,
      );
    }
    return { found: holds.length, captured: orders.length };
  });
}
