import { serializeJson } from '../platform/json.ts';
import { Money } from '../platform/money.ts';
import { pricingErrors } from './errors.ts';
import type { PriceSnapshot } from './prices.ts';
import { rateDown } from './rounding.ts';

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

export interface DerivedRate {
  /** Destination units per one source unit (API.md decision 2), rounded down. */
  rate: Money;
  derivation: RateDerivation;
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

/** From one currency to every priced currency (itself included, at rate 1): what equivalencies multiply by. */
export interface RateTo {
  code: string;
  rate: Money;
}

const ratesFromCache = new WeakMap<PriceSnapshot, Map<string, readonly RateTo[]>>();

/** deriveRate from `from` to each of pricedCurrencies, listed once per snapshot and currency. */
export function ratesFrom(snapshot: PriceSnapshot, from: string): readonly RateTo[] {
  let cache = ratesFromCache.get(snapshot);
  if (!cache) {
    cache = new Map();
    ratesFromCache.set(snapshot, cache);
  }
  let list = cache.get(from);
  if (!list) {
    list = pricedCurrencies(snapshot).map((code) => ({
      code,
      rate: code === from ? ONE : deriveRate(snapshot, from, code).rate,
    }));
    cache.set(from, list);
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

/**
 * GET /v3/rates keyed `<FROM><TO>` (facts §1.6): MULTIPLIER = destination per source unit
 * (source × rate = dest), DIVISOR = source per destination unit (source ÷ rate = dest), PRICED
 * both, keyed by currency. Built once per snapshot and kept as UTF-8 bytes of JSON: the endpoint
 * is public and hot, prices change far less often than it is read, and an answer of about 11 KB
 * sent as a string is measured and encoded again on every request.
 */
const rendered = new WeakMap<PriceSnapshot, Map<RatesView, Buffer>>();

export function ratesJson(snapshot: PriceSnapshot, view: RatesView): Buffer {
  let views = rendered.get(snapshot);
  if (!views) {
    views = renderAll(snapshot);
    rendered.set(snapshot, views);
  }
  return views.get(view)!;
}

function renderAll(snapshot: PriceSnapshot): Map<RatesView, Buffer> {
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
  return new Map<RatesView, Buffer>([
    ['DIVISOR', Buffer.from(serializeJson(divisor))],
    ['MULTIPLIER', Buffer.from(serializeJson(multiplier))],
    ['PRICED', Buffer.from(serializeJson(priced))],
  ]);
}
