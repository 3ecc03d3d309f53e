import type { CardProcessor } from '../cards/index.ts';
import { type Network, parseChainSrn } from '../chains/index.ts';
import { holdArguments, type NewEntry, voidHold } from '../ledger/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import type { OrderRow } from './store.ts';

/**
 * A card order's money on the ledger (DESIGN.md "Ledger"):
 * - authorised: a hold on `external:card` for the charged amount (the card network owes it),
 *   held through PROCESSING until the capture;
 * - captured (with the delivery, or before the authorization expires: docs/contract.md,
 *   decisions 110 and 112): one entry settles the hold: the charge leaves `external:card`, the
 *   source-currency fee goes to `house:fees` and the rest to `house:fx`;
 * - delivered: the crypto leaves `house:inventory` (the house's coin of that currency, hence of
 *   that chain, which the operator funds through the house's deposit address) for the customer's
 *   destination (`account:AC_…` for custody, `external:chain:<chain>` for an address; the network
 *   fee stays with house:fx, which was paid for it in the charge);
 * - refunded before delivery (a failed delivery once the sweep had captured, a partner's or the
 *   operator's refund): the capture entry is reversed;
 * - refunded after delivery (the operator, or the processor on its own): the loss account below;
 * - disputed: the chargebacks account below, and back when the dispute is won.
 * A void before capture (a failure, delivery's or a refund's included) only releases the hold:
 * nothing was ever posted.
 */
/** Contract decision 84: what deliveries draw on; below zero, the operator's shortfall. */
const HOUSE_INVENTORY = 'house:inventory';
const reference = (orderId: string) => `order:${orderId}`;
/** Who holds a card order's money until the capture: the card network. */
export const CARD_HOLDER = 'external:card';
/** The order a card hold is for, from its reference (undefined for any other hold). */
export const orderOfHold = (holdReference: string | null) =>
  holdReference?.startsWith('order:') ? holdReference.slice('order:'.length) : undefined;

/**
 * The card hold as ledger_place_holds' arguments (migration 019): the order's insert places it in
 * its own statement (insertOrders), so the hold costs no round trip of its own. It expires when
 * the processor's authorization does: the sweep that captures aging authorizations finds them by
 * their holds (capture-sweep.ts).
 */
export function cardHoldArguments(
  processor: Pick<CardProcessor, 'authorizationLifetimeMs'>,
  orderId: string,
  currency: string,
  amount: Money,
  nowMs: number,
) {
  return holdArguments({
    owner: CARD_HOLDER,
    currency,
    amount,
    expiresAtMs: nowMs + processor.authorizationLifetimeMs,
    reference: reference(orderId),
  });
}

export function releaseCardHold(tx: Tx, order: OrderRow): Promise<void> {
  if (order.hold_id === null) return Promise.resolve();
  return voidHold(tx, order.hold_id);
}

function sourceFee(order: Pick<OrderRow, 'fees' | 'source_currency'>): Money {
  return new Money(order.fees[order.source_currency] ?? '0');
}

/**
 * The capture: one entry settles the card hold, the charge leaving external:card, its fee to
 * house:fees and the rest to house:fx. Booked with the delivery by the COMPLETE status change
 * (setStatuses), by the sweep before the authorization expires (markCaptured), or on its own
 * (settleHold, custody destinations).
 */
export function captureEntry(
  order: Pick<OrderRow, 'id' | 'hold_id' | 'source_amount' | 'source_currency' | 'fees'>,
): { holdId: number; entry: NewEntry } {
  if (order.hold_id === null) throw new Error(`order ${order.id} has no card hold`);
  const charged = new Money(order.source_amount);
  const fee = sourceFee(order);
  const postings = [
    { owner: 'external:card', currency: order.source_currency, amount: charged.negated() },
    { owner: 'house:fx', currency: order.source_currency, amount: charged.minus(fee) },
  ];
  if (fee.gt(0)) postings.push({ owner: 'house:fees', currency: order.source_currency, amount: fee });
  return {
    holdId: order.hold_id,
    entry: { kind: 'order.capture', reference: reference(order.id), memo: 'card captured', postings },
  };
}

/** Where the crypto goes on the ledger: a custody account, or the chain the address lives on. */
export function destOwner(dest: string, network: Network): string {
  if (dest.startsWith('account:')) return dest;
  if (dest.startsWith('AC_')) return `account:${dest}`;
  return `external:chain:${parseChainSrn(dest, 'dest', network).chain}`;
}

/** The delivery's entry, booked by the status change it comes with (transitions.ts moveTo). */
export function deliveryEntry(
  order: Pick<OrderRow, 'id' | 'dest' | 'dest_currency' | 'dest_amount'>,
  network: Network,
): NewEntry {
  const amount = new Money(order.dest_amount);
  return {
    kind: 'order.delivery',
    reference: reference(order.id),
    postings: [
      { owner: HOUSE_INVENTORY, currency: order.dest_currency, amount: amount.negated() },
      { owner: destOwner(order.dest, network), currency: order.dest_currency, amount },
    ],
  };
}

/** The capture entry reversed, booked by the status change it comes with (transitions.ts moveTo). */
export function refundEntry(order: OrderRow): NewEntry {
  const postings = captureEntry(order).entry.postings.map((posting) => ({
    ...posting,
    amount: posting.amount.negated(),
  }));
  return { kind: 'order.refund', reference: reference(order.id), postings };
}

/**
 * Contract decision 115: a refund of an order whose crypto was delivered, or one the processor
 * made without Rampart, is the house's loss. The card network is owed `amount` back
 * (external:card) from this account; what the capture booked to house:fx and house:fees stays.
 */
export const CARD_REFUND_LOSSES = 'house:card-refund-losses';
/** Contract decision 118: what a card network takes back for a dispute, until the dispute is won. */
export const CHARGEBACKS = 'house:chargebacks';
/** Contract decision 120: the processor's processing and dispute fees. */
export const PROCESSOR_FEES = 'house:processor-fees';

/** A movement between external:card and a house account: `amount` leaves `house` for the card network. */
function cardLoss(kind: string, ref: string, house: string, currency: string, amount: Money): NewEntry {
  return {
    kind,
    reference: ref,
    postings: [
      { owner: 'external:card', currency, amount },
      { owner: house, currency, amount: amount.negated() },
    ],
  };
}

export function refundLossEntry(orderId: string, currency: string, amount: Money): NewEntry {
  return cardLoss('order.refund-loss', reference(orderId), CARD_REFUND_LOSSES, currency, amount);
}

/** A refund the processor reports failed: what its refund booked, reversed. */
export function failedRefundEntry(refundBooked: NewEntry): NewEntry {
  return {
    kind: 'order.refund-failed',
    reference: refundBooked.reference ?? '',
    postings: refundBooked.postings.map((posting) => ({ ...posting, amount: posting.amount.negated() })),
  };
}

export function chargebackEntry(orderId: string, currency: string, withdrawn: Money): NewEntry {
  return cardLoss('order.chargeback', reference(orderId), CHARGEBACKS, currency, withdrawn);
}

/** A dispute won: what the chargeback took comes back from the card network. */
export function chargebackReversalEntry(orderId: string, currency: string, withdrawn: Money): NewEntry {
  return cardLoss(
    'order.chargeback-reversed',
    reference(orderId),
    CHARGEBACKS,
    currency,
    withdrawn.negated(),
  );
}

/** A processor fee (positive: the processor keeps it out of what it owes; negative: a fee given back). */
export function processorFeeEntry(feeReference: string, currency: string, fee: Money): NewEntry {
  return cardLoss('card.processor-fee', feeReference, PROCESSOR_FEES, currency, fee);
}
