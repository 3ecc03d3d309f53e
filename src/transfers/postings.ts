import type { Posting } from '../ledger/index.ts';
import { Money } from '../platform/money.ts';

/**
 * The ledger legs of a transfer (DESIGN.md "Ledger"): S = sourceAmount, W = without fees,
 * D = destAmount, NF = network fee (dest currency). Fees go to house:fees, the exchange runs
 * through house:fx, and a chain payout goes to external:chain:<chain>. Where the NF goes depends
 * on who pays the miners (contract decision 73): a simulated chain's send pays exactly the NF, so
 * it leaves with the payout (chain +NF); a real chain's sender books the gas it actually paid
 * from house:fees when the transaction is mined, so the NF the partner paid is the house's
 * (house:fees +NF, in the dest currency) and custody loses the gas once:
 *
 *   same currency: source −S, dest +D, chain +NF, house:fees +(S − D − NF)
 *   exchange:      source −S, house:fx +W, house:fees +(S − W)        (source currency)
 *                  house:fx −D, dest +D, house:fees −NF, chain +NF     (dest currency)
 *   real chain:    the chain +NF leg is house:fees +NF instead
 *
 * Legs for the same owner and currency are merged and zero legs dropped, so a free book
 * transfer is exactly two postings.
 */
export interface SettlementFigures {
  sourceOwner: string;
  destOwner: string;
  /** external:chain:<chain> when the dest is a chain address. */
  chainOwner: string | null;
  sourceCurrency: string;
  destCurrency: string;
  sourceAmount: Money;
  sourceAmountWithoutFees: Money;
  destAmount: Money;
  networkFee: Money;
  /** True when the chain's sender books the gas it pays itself: the NF stays with house:fees. */
  houseKeepsNetworkFee: boolean;
}

export function settlementPostings(f: SettlementFigures): Posting[] {
  const legs: Posting[] = [
    { owner: f.sourceOwner, currency: f.sourceCurrency, amount: f.sourceAmount.negated() },
  ];
  const add = (owner: string, currency: string, amount: Money) => legs.push({ owner, currency, amount });
  if (f.sourceCurrency === f.destCurrency) {
    add('house:fees', f.sourceCurrency, f.sourceAmount.minus(f.destAmount).minus(f.networkFee));
  } else {
    add('house:fx', f.sourceCurrency, f.sourceAmountWithoutFees);
    add('house:fees', f.sourceCurrency, f.sourceAmount.minus(f.sourceAmountWithoutFees));
    add('house:fx', f.destCurrency, f.destAmount.negated());
    add('house:fees', f.destCurrency, f.networkFee.negated());
  }
  add(f.destOwner, f.destCurrency, f.destAmount);
  if (f.chainOwner) add(f.houseKeepsNetworkFee ? 'house:fees' : f.chainOwner, f.destCurrency, f.networkFee);
  return merged(legs);
}

/** The exact opposite entry: what a failed withdrawal posts to give everything back. */
export function reversalPostings(postings: Posting[]): Posting[] {
  return postings.map((p) => ({ ...p, amount: p.amount.negated() }));
}

function merged(legs: Posting[]): Posting[] {
  const byKey = new Map<string, Posting>();
  for (const leg of legs) {
    const key = `${leg.owner}\u0000${leg.currency}`;
    const current = byKey.get(key);
    byKey.set(key, { ...leg, amount: (current?.amount ?? new Money(0)).plus(leg.amount) });
  }
  return [...byKey.values()].filter((leg) => !leg.amount.isZero());
}
