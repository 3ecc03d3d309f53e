import {
  type BalanceTransaction,
  cardErrors,
  type Payout,
  type ProcessorBooks,
  type TimeRange,
} from '../cards/index.ts';
import { movementsOf, postEntry } from '../ledger/index.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { processorFeeEntry } from './ledger.ts';
import { type FeeBooking, feeBookingsIn, insertFeeBookings } from './refunds-store.ts';

/**
 * The card money reconciliation (docs/contract.md, decisions 120 to 122): the processor's books
 * for a period against the ledger's card account (external:card, what the processor owes the
 * house), to the cent, per currency and per order. First the fees the processor's balance
 * transactions show are booked (each once, decision 120), then per order and per currency:
 * captured − refunded − chargebacks − processing fees − dispute fees on both sides; payouts are
 * matched against the balance transactions paid out in them. Every difference is listed.
 */

export type Category = 'captured' | 'refunded' | 'chargebacks' | 'processingFees' | 'disputeFees' | 'other';
const CATEGORIES: Category[] = [
  'captured',
  'refunded',
  'chargebacks',
  'processingFees',
  'disputeFees',
  'other',
];

type Totals = Record<Category, Money>;

export interface CurrencyLine extends Record<Category, Money> {
  currency: string;
  /** captured − refunded − chargebacks − processingFees − disputeFees (+ other), on each side. */
  ledgerNet: Money;
  processorNet: Money;
  difference: Money;
  balanced: boolean;
}

export interface Mismatch {
  orderId: string | null;
  currency: string;
  category: Category;
  ledger: Money;
  processor: Money;
  difference: Money;
}

export interface PayoutLine {
  reference: string;
  currency: string;
  amount: Money;
  status: Payout['status'];
  /** What the balance transactions paid out in it come to (amount less fees). */
  paidOutTransactions: Money;
  matched: boolean;
}

export interface CardReconciliation {
  from: number;
  to: number;
  currencies: CurrencyLine[];
  mismatches: Mismatch[];
  payouts: PayoutLine[];
  /** Processor fees the call found and booked now. */
  feesBooked: number;
  balanced: boolean;
}

/** Per (order, currency) totals on one side; order null: movements of no order. */
class Sides {
  readonly rows = new Map<
    string,
    { orderId: string | null; currency: string; ledger: Totals; processor: Totals }
  >();

  add(
    side: 'ledger' | 'processor',
    orderId: string | null,
    currency: string,
    category: Category,
    amount: Money,
  ) {
    const key = `${orderId ?? ''}\n${currency}`;
    let row = this.rows.get(key);
    if (!row) {
      row = { orderId, currency, ledger: zeroTotals(), processor: zeroTotals() };
      this.rows.set(key, row);
    }
    row[side][category] = row[side][category].plus(amount);
  }
}

function zeroTotals(): Totals {
  return Object.fromEntries(CATEGORIES.map((category) => [category, new Money(0)])) as Totals;
}

/** How the ledger's entry kinds on external:card count (card.processor-fee: from the bookings). */
const LEDGER_CATEGORY: Record<string, Category> = {
  'order.capture': 'captured',
  'order.refund': 'refunded',
  'order.refund-loss': 'refunded',
  'order.refund-failed': 'refunded',
  'order.chargeback': 'chargebacks',
  'order.chargeback-reversed': 'chargebacks',
};

const orderOfReference = (reference: string | null) =>
  reference?.startsWith('order:') ? reference.slice('order:'.length) : null;

export async function reconcileCards(ctx: WalletOrdersDeps, range: TimeRange): Promise<CardReconciliation> {
  const processor = ctx.cardProcessor;
  if (!processor.books) throw cardErrors.noProcessor();
  const books = await processor.books(ctx.db, range);
  const feesBooked = await bookFees(ctx, books.balanceTransactions);
  const sides = new Sides();
  for (const movement of await movementsOf(ctx.db, 'external:card', range)) {
    if (movement.kind === 'card.processor-fee') continue;
    const category = LEDGER_CATEGORY[movement.kind] ?? 'other';
    // external:card goes down when the processor owes more (a capture): the sign flipped, a
    // capture counts positive and everything given back negative, as on the processor's books.
    const signed = movement.amount.negated();
    sides.add('ledger', orderOfReference(movement.reference), movement.currency, category, signed);
  }
  for (const fee of await feeBookingsIn(ctx.db, range.fromMs, range.toMs)) {
    const category = fee.kind === 'DISPUTE' ? 'disputeFees' : 'processingFees';
    sides.add('ledger', fee.order_id, fee.currency, category, new Money(fee.total).negated());
  }
  for (const transaction of books.balanceTransactions) addProcessorSide(sides, transaction);
  return summarize(range, sides, matchPayouts(books), feesBooked);
}

function addProcessorSide(sides: Sides, transaction: BalanceTransaction) {
  const { orderId, currency } = transaction;
  const fee = feeOf(transaction);
  if (!fee.isZero()) sides.add('processor', orderId, currency, feeCategory(transaction), fee.negated());
  const category = PROCESSOR_CATEGORY[transaction.type];
  if (category && !transaction.amount.isZero())
    sides.add('processor', orderId, currency, category, transaction.amount);
}

const PROCESSOR_CATEGORY: Partial<Record<BalanceTransaction['type'], Category>> = {
  charge: 'captured',
  refund: 'refunded',
  dispute: 'chargebacks',
  adjustment: 'other',
  other: 'other',
};

/** A balance transaction's fee: its `fee`, or the whole of a dispute-fee transaction. */
function feeOf(transaction: BalanceTransaction): Money {
  return transaction.type === 'dispute_fee'
    ? transaction.amount.negated().plus(transaction.fee)
    : transaction.fee;
}

const feeCategory = (transaction: BalanceTransaction): Category =>
  transaction.type === 'dispute' || transaction.type === 'dispute_fee' ? 'disputeFees' : 'processingFees';

/** Decision 120: each balance transaction's fee booked once, keyed by its reference. */
async function bookFees(ctx: WalletOrdersDeps, transactions: readonly BalanceTransaction[]): Promise<number> {
  const fees: FeeBooking[] = transactions
    .filter((transaction) => transaction.type !== 'payout' && !feeOf(transaction).isZero())
    .map((transaction) => ({
      reference: transaction.reference,
      orderId: transaction.orderId,
      kind: feeCategory(transaction) === 'disputeFees' ? 'DISPUTE' : 'PROCESSING',
      amount: feeOf(transaction).toFixed(),
      currency: transaction.currency,
      occurredAtMs: transaction.createdAtMs,
    }));
  if (fees.length === 0) return 0;
  return withTransaction(ctx.db, async (tx) => {
    const recorded = await insertFeeBookings(tx, fees);
    for (const fee of fees.filter((candidate) => recorded.has(candidate.reference))) {
      await postEntry(
        tx,
        processorFeeEntry(`card-fee:${fee.reference}`, fee.currency, new Money(fee.amount)),
      );
    }
    return recorded.size;
  });
}

/**
 * Decision 121: a payout matches when the processor's books carry it (its payout balance
 * transaction takes exactly its amount) and, where the transactions say which payout paid them
 * out, those come to its amount (amount less fee).
 */
function matchPayouts(books: ProcessorBooks): PayoutLine[] {
  return books.payouts.map((payout) => {
    const ofPayout = books.balanceTransactions.filter((bt) => bt.payoutReference === payout.reference);
    const booked = ofPayout.filter((bt) => bt.type === 'payout');
    const paidIn = ofPayout.filter((bt) => bt.type !== 'payout');
    const paidOut = paidIn.reduce((sum, bt) => sum.plus(bt.amount).minus(bt.fee), new Money(0));
    const bookedAmount = booked.reduce((sum, bt) => sum.minus(bt.amount), new Money(0));
    return {
      reference: payout.reference,
      currency: payout.currency,
      amount: payout.amount,
      status: payout.status,
      paidOutTransactions: paidIn.length > 0 ? paidOut : bookedAmount,
      matched:
        booked.length > 0 &&
        bookedAmount.eq(payout.amount) &&
        (paidIn.length === 0 || paidOut.eq(payout.amount)),
    };
  });
}

function summarize(
  range: TimeRange,
  sides: Sides,
  payouts: PayoutLine[],
  feesBooked: number,
): CardReconciliation {
  const byCurrency = new Map<string, { ledger: Totals; processor: Totals }>();
  const mismatches: Mismatch[] = [];
  for (const row of sides.rows.values()) {
    let totals = byCurrency.get(row.currency);
    if (!totals) {
      totals = { ledger: zeroTotals(), processor: zeroTotals() };
      byCurrency.set(row.currency, totals);
    }
    for (const category of CATEGORIES) {
      const ledger = row.ledger[category];
      const processor = row.processor[category];
      totals.ledger[category] = totals.ledger[category].plus(ledger);
      totals.processor[category] = totals.processor[category].plus(processor);
      if (!ledger.eq(processor)) {
        mismatches.push({
          orderId: row.orderId,
          currency: row.currency,
          category,
          ledger,
          processor,
          difference: processor.minus(ledger),
        });
      }
    }
  }
  const currencies = [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currency, totals]) => currencyLine(currency, totals.ledger, totals.processor));
  return {
    from: range.fromMs,
    to: range.toMs,
    currencies,
    mismatches,
    payouts,
    feesBooked,
    balanced:
      mismatches.length === 0 &&
      currencies.every((line) => line.balanced) &&
      payouts.every((line) => line.matched),
  };
}

/** The processor's amounts per category (signed: what it gave back and kept is negative). */
function currencyLine(currency: string, ledger: Totals, processor: Totals): CurrencyLine {
  const net = (totals: Totals) =>
    CATEGORIES.reduce((sum, category) => sum.plus(totals[category]), new Money(0));
  const ledgerNet = net(ledger);
  const processorNet = net(processor);
  return {
    currency,
    captured: processor.captured,
    refunded: processor.refunded.negated(),
    chargebacks: processor.chargebacks.negated(),
    processingFees: processor.processingFees.negated(),
    disputeFees: processor.disputeFees.negated(),
    other: processor.other,
    ledgerNet,
    processorNet,
    difference: processorNet.minus(ledgerNet),
    balanced: processorNet.eq(ledgerNet),
  };
}
