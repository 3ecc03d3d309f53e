import { networkFor, parseChainSrn } from '../chains/addresses.ts';
import { placeHold, postEntry, postHold, voidHold } from '../ledger/service.ts';
import type { Tx } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import type { OrderRow } from './store.ts';

/**
 * A card order's money on the ledger (DESIGN.md "Ledger"):
 * - authorised: a hold on `external:card` for the charged amount (the card network owes it);
 * - captured (PROCESSING): the hold is posted to `house:fx`, and the source-currency fee moves
 *   from `house:fx` to `house:fees`;
 * - delivered: the crypto leaves `house:fx` for the customer's destination (`account:AC_…` for
 *   custody, `external:chain:<chain>` for an address; the network fee stays with house:fx, which
 *   was paid for it in the charge);
 * - refunded (delivery failed after capture): both capture entries are reversed.
 * A void before capture only releases the hold: nothing was ever posted.
 */
const HOLD_LIFETIME_MS = 7 * 24 * 3600 * 1000;
const reference = (orderId: string) => `order:${orderId}`;

export function ledgerHoldForCard(tx: Tx, orderId: string, currency: string, amount: Money, nowMs: number) {
  return placeHold(tx, {
    owner: 'external:card',
    currency,
    amount,
    expiresAtMs: nowMs + HOLD_LIFETIME_MS,
    reference: reference(orderId),
  });
}

export function releaseCardHold(tx: Tx, order: OrderRow): Promise<void> {
  if (order.hold_id === null) return Promise.resolve();
  return voidHold(tx, order.hold_id);
}

function sourceFee(order: OrderRow): Money {
  return new Money(order.fees[order.source_currency] ?? '0');
}

export async function postCapture(tx: Tx, order: OrderRow): Promise<void> {
  if (order.hold_id === null) throw new Error(`order ${order.id} has no card hold`);
  await postHold(tx, order.hold_id, { to: 'house:fx', kind: 'order.capture', memo: 'card captured' });
  const fee = sourceFee(order);
  if (fee.gt(0)) {
    await postEntry(tx, {
      kind: 'order.fee',
      reference: reference(order.id),
      postings: [
        { owner: 'house:fx', currency: order.source_currency, amount: fee.negated() },
        { owner: 'house:fees', currency: order.source_currency, amount: fee },
      ],
    });
  }
}

/** Where the crypto goes on the ledger: a custody account, or the chain the address lives on. */
export function destOwner(dest: string, env: 'sandbox' | 'production'): string {
  if (dest.startsWith('account:')) return dest;
  if (dest.startsWith('AC_')) return `account:${dest}`;
  return `external:chain:${parseChainSrn(dest, 'dest', networkFor(env)).chain}`;
}

export async function postDelivery(tx: Tx, order: OrderRow, env: 'sandbox' | 'production'): Promise<void> {
  const amount = new Money(order.dest_amount);
  await postEntry(tx, {
    kind: 'order.delivery',
    reference: reference(order.id),
    postings: [
      { owner: 'house:fx', currency: order.dest_currency, amount: amount.negated() },
      { owner: destOwner(order.dest, env), currency: order.dest_currency, amount },
    ],
  });
}

export async function postRefund(tx: Tx, order: OrderRow): Promise<void> {
  const charged = new Money(order.source_amount);
  const fee = sourceFee(order);
  const postings = [
    { owner: 'house:fx', currency: order.source_currency, amount: charged.minus(fee).negated() },
    { owner: 'external:card', currency: order.source_currency, amount: charged },
  ];
  if (fee.gt(0))
    postings.push({ owner: 'house:fees', currency: order.source_currency, amount: fee.negated() });
  await postEntry(tx, { kind: 'order.refund', reference: reference(order.id), postings });
}
