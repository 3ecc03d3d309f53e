import { currencyScale, Money } from '../platform/money.ts';
import {
  computeQuote,
  currentFeeSchedule,
  currentPrices,
  type FeeRule,
  type FeeSchedule,
  type PriceSnapshot,
  pricingErrors,
} from '../pricing/index.ts';
import type { TransferRulesDeps } from './deps.ts';

/**
 * A transfer's amounts, from pricing's one quote function (docs/contract.md, decision 2). Fees: the rule
 * of the fee schedule's `transfer` method (same currency) or `transfer-exchange` method (with
 * exchange) for the source currency when the operator defined one (PUT /operator/v1/fees), else
 * the defaults below; plus the schedule's network fee of the dest currency when the dest is a
 * chain address (paid to the chain by house:fees).
 */
export interface TransferQuote {
  sourceAmount: Money;
  sourceAmountWithoutFees: Money;
  destAmount: Money;
  /** Destination units per source unit; null without exchange (docs/contract.md, Transfers). */
  exchangeRate: Money | null;
  fees: Record<string, Money>;
  /** In the source currency: sourceAmount − sourceAmountWithoutFees (network fee included). */
  totalFees: Money;
  /** In the dest currency; 0 unless the dest is a chain address. */
  networkFee: Money;
}

export interface TransferQuoteInput {
  sourceCurrency: string;
  destCurrency: string;
  amount: { side: 'source' | 'dest'; value: Money; field: string };
  amountIncludesFees: boolean;
  toChain: boolean;
}

const SAME_CURRENCY_METHOD = 'transfer';
const EXCHANGE_METHOD = 'transfer-exchange';
/** Book transfers are free; exchanges cost 0.5 % (both overridable in the fee schedule). */
const DEFAULT_PERCENT = { [SAME_CURRENCY_METHOD]: '0', [EXCHANGE_METHOD]: '0.5' };
const NO_UPPER_BOUND = new Money('1e30');

function ruleFor(schedule: FeeSchedule, method: keyof typeof DEFAULT_PERCENT, currency: string): FeeRule {
  const configured = schedule.methods.get(method)?.get(currency);
  if (configured) return configured;
  const unit = new Money(10).pow(-currencyScale(currency));
  return {
    percent: new Money(DEFAULT_PERCENT[method]),
    flat: new Money(0),
    minOrder: unit,
    maxOrder: NO_UPPER_BOUND,
  };
}

/**
 * Without exchange the rate is 1 whatever the market says, so the quote runs on a snapshot
 * pricing only that currency: a plain transfer never depends on the price feed being fresh.
 */
function unitSnapshot(currency: string): PriceSnapshot {
  return { usdPrices: new Map([[currency, new Money(1)]]), asOfMs: 0, source: 'reference' };
}

export async function quoteTransfer(
  ctx: TransferRulesDeps,
  input: TransferQuoteInput,
): Promise<TransferQuote> {
  const { sourceCurrency: src, destCurrency: dest } = input;
  const exchange = src !== dest;
  const method = exchange ? EXCHANGE_METHOD : SAME_CURRENCY_METHOD;
  const fullSchedule = await currentFeeSchedule(ctx);
  const networkFee = input.toChain ? fullSchedule.networkFees.get(dest) : new Money(0);
  // The fee schedule defines what may be sent on a chain, as it defines what cards may buy.
  if (!networkFee) throw pricingErrors.unsupportedCurrency('destCurrency', dest, 'cannot be sent on a chain');
  const schedule: FeeSchedule = {
    methods: new Map([[method, new Map([[src, ruleFor(fullSchedule, method, src)]])]]),
    networkFees: new Map([[dest, networkFee]]),
  };
  const snapshot = exchange ? await currentPrices(ctx) : unitSnapshot(src);
  const { quote } = computeQuote(
    {
      sourceCurrency: src,
      destCurrency: dest,
      paymentMethod: method,
      amount: input.amount,
      amountIncludeFees: input.amountIncludesFees,
    },
    snapshot,
    schedule,
  );
  const totalFees = quote.sourceAmount.minus(quote.sourceAmountWithoutFees);
  return {
    sourceAmount: quote.sourceAmount,
    sourceAmountWithoutFees: quote.sourceAmountWithoutFees,
    destAmount: quote.destAmount,
    exchangeRate: exchange ? quote.exchangeRate : null,
    // The quote keys fees by currency; with one currency both would share a key, so the total.
    fees: exchange ? quote.fees : { [src]: totalFees },
    totalFees,
    networkFee,
  };
}
