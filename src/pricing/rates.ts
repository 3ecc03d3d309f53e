import { serializerFor } from '../platform/json.ts';
import { Money } from '../platform/money.ts';
import { pricingErrors } from './errors.ts';
import type { PriceSnapshot } from './prices.ts';
import { type Direction, mulDivRounded, rateDown } from './rounding.ts';

/** How a rate was obtained, stored with every locked quote so it can be explained later. */
export interface RateDerivation {
  source: PriceSnapshot['source'];
  asOfMs: number;
  /** 'direct' when one side is USD; otherwise the cross rate goes through USD. */
  via: 'direct' | 'USD';
  sourceUsdPrice: string;
  destUsdPrice: string;
  formula: 'sourceUsdPrice / destUsdPrice';
}

/**
 * A pair's price. Quotes compute with the exact price P = destUsd ÷ sourceUsd (source units per
 * one destination unit), through toSource and toDest; `rate` is only shown (docs/contract.md,
 * Quote arithmetic).
 */
export interface DerivedRate {
  /** The quote's exchangeRate: destination units per one source unit, rounded down. */
  rate: Money;
  /** USD per one source unit and per one destination unit, exactly as the price table holds them. */
  sourceUsd: Money;
  destUsd: Money;
  derivation: RateDerivation;
}

/** A destination amount's value in the source currency (amount × P), rounded once. */
export function toSource(
  price: DerivedRate,
  amount: Money,
  sourceCurrency: string,
  direction: Direction,
): Money {
  return mulDivRounded(amount, price.destUsd, price.sourceUsd, sourceCurrency, direction);
}

/** What a source amount buys in the destination currency (amount ÷ P), rounded once. */
export function toDest(price: DerivedRate, amount: Money, destCurrency: string, direction: Direction): Money {
  return mulDivRounded(amount, price.sourceUsd, price.destUsd, destCurrency, direction);
}

const ONE = new Money(1);

export function usdPrice(snapshot: PriceSnapshot, currency: string, field: string): Money {
  if (currency === 'USD') return ONE;
  const price = snapshot.usdPrices.get(currency);
  if (!price) throw pricingErrors.noPrice(field, currency);
  return price;
}

/**
 * Every cross rate is sourceUsd / destUsd: one rule, so no pair can disagree with another.
 * Derived once per snapshot and pair: quotes on the hot path reuse them.
 */
const derivedRates = new WeakMap<PriceSnapshot, Map<string, DerivedRate>>();

export function deriveRate(snapshot: PriceSnapshot, from: string, to: string): DerivedRate {
  let cache = derivedRates.get(snapshot);
  if (!cache) {
    cache = new Map();
    derivedRates.set(snapshot, cache);
  }
  const key = `${from}>${to}`;
  let derived = cache.get(key);
  if (!derived) {
    derived = computeRate(snapshot, from, to);
    cache.set(key, derived);
  }
  return derived;
}

function computeRate(snapshot: PriceSnapshot, from: string, to: string): DerivedRate {
  const sourceUsd = usdPrice(snapshot, from, 'sourceCurrency');
  const destUsd = usdPrice(snapshot, to, 'destCurrency');
  return {
    rate: rateDown(sourceUsd.div(destUsd)),
    sourceUsd,
    destUsd,
    derivation: {
      source: snapshot.source,
      asOfMs: snapshot.asOfMs,
      via: from === 'USD' || to === 'USD' ? 'direct' : 'USD',
      sourceUsdPrice: sourceUsd.toFixed(),
      destUsdPrice: destUsd.toFixed(),
      formula: 'sourceUsdPrice / destUsdPrice',
    },
  };
}

/** A priced currency and its exact USD price (USD itself at 1): what equivalencies convert with. */
export interface UsdPrice {
  code: string;
  usdPrice: Money;
}

const usdPriceLists = new WeakMap<PriceSnapshot, readonly UsdPrice[]>();

/** Every priced currency with its USD price, listed once per snapshot. */
export function usdPricesOf(snapshot: PriceSnapshot): readonly UsdPrice[] {
  let list = usdPriceLists.get(snapshot);
  if (!list) {
    list = pricedCurrencies(snapshot).map((code) => ({
      code,
      usdPrice: usdPrice(snapshot, code, 'currency'),
    }));
    usdPriceLists.set(snapshot, list);
  }
  return list;
}

const currencyLists = new WeakMap<PriceSnapshot, string[]>();

export function pricedCurrencies(snapshot: PriceSnapshot): readonly string[] {
  let codes = currencyLists.get(snapshot);
  if (!codes) {
    codes = ['USD', ...[...snapshot.usdPrices.keys()].filter((code) => code !== 'USD')].sort();
    currencyLists.set(snapshot, codes);
  }
  return codes;
}

export type RatesView = 'DIVISOR' | 'MULTIPLIER' | 'PRICED';

export type RatesFormat = 'json' | 'json_numberstring';

/**
 * GET /v3/rates keyed `<FROM><TO>` (docs/contract.md, Rates): MULTIPLIER = destination per
 * source unit (source × rate = dest), DIVISOR = source per destination unit (source ÷ rate =
 * dest), PRICED both, keyed by currency. Built once per snapshot and kept as UTF-8 bytes of JSON, per view and
 * per `format` (numbers, or json_numberstring's strings): the endpoint is public and hot, prices
 * change far less often than it is read, and an answer of about 11 KB sent as a string is
 * measured and encoded again on every request.
 */
interface RenderedRates {
  views: Record<RatesView, unknown>;
  bytes: Record<RatesFormat, Map<RatesView, Buffer>>;
}

const rendered = new WeakMap<PriceSnapshot, RenderedRates>();

export function ratesJson(snapshot: PriceSnapshot, view: RatesView, format: RatesFormat = 'json'): Buffer {
  let cached = rendered.get(snapshot);
  if (!cached) {
    cached = { views: ratesViews(snapshot), bytes: { json: new Map(), json_numberstring: new Map() } };
    rendered.set(snapshot, cached);
  }
  const byView = cached.bytes[format] ?? cached.bytes.json;
  let bytes = byView.get(view);
  if (!bytes) {
    bytes = Buffer.from(serializerFor(format)(cached.views[view]));
    byView.set(view, bytes);
  }
  return bytes;
}

function ratesViews(snapshot: PriceSnapshot): Record<RatesView, unknown> {
  const divisor: Record<string, Money> = {};
  const multiplier: Record<string, Money> = {};
  const priced: Record<string, Record<string, Money>> = {};
  const codes = pricedCurrencies(snapshot);
  for (const from of codes) {
    for (const to of codes) {
      if (from === to) continue;
      const fromUsd = usdPrice(snapshot, from, 'currency');
      const toUsd = usdPrice(snapshot, to, 'currency');
      const times = rateDown(fromUsd.div(toUsd));
      const per = rateDown(toUsd.div(fromUsd));
      multiplier[from + to] = times;
      divisor[from + to] = per;
      priced[from + to] = { [from]: per, [to]: times };
    }
  }
  return { DIVISOR: divisor, MULTIPLIER: multiplier, PRICED: priced };
}
