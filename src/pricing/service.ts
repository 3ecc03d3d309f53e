import type { Config } from '../config.ts';
import { auditOperatorChange, type OperatorAct } from '../operator/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { AppContext } from '../platform/context.ts';
import type { Db } from '../platform/db/pool.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { DEFAULT_USD_PRICES } from './default-prices.ts';
import { pricingErrors } from './errors.ts';
import { FeedRateSource } from './feed-source.ts';
import { type FeeSchedule, type FeeScheduleJson, feeScheduleJson, parseFeeSchedule } from './fees.ts';
import { parseUsdPrices } from './price-input.ts';
import type { PriceSnapshot, RateSource } from './prices.ts';
import { computeQuote, type PricedQuote, type QuoteInput } from './quote.ts';
import { type RatesFormat, type RatesView, ratesJson } from './rates.ts';
import { ReferenceRateSource } from './reference-source.ts';
import { type PricingSettings, PricingSettingsCache } from './settings.ts';
import { readReferencePrices, upsertReferencePrices, writeFeeSchedule } from './store.ts';

/**
 * The price feed port: where quotes' prices come from (the operator's reference table, over the
 * shipped defaults in sandbox, or a live feed) and this process's copy of the operator's
 * settings. One per process, made by the composition root and shared by the app and its workers,
 * so a feed polls once and a settings change reaches both.
 */
export interface PriceFeed {
  source: RateSource;
  reference: ReferenceRateSource;
  settings: PricingSettingsCache;
}

/** What the pricing functions are given. */
export interface PricingDeps extends AppContext {
  prices: PriceFeed;
}

/** The price feed the configuration asks for; a live feed starts polling. `close()` stops it. */
export function createPriceFeed(
  config: Config,
  db: Db,
  clock: Clock,
  withDefaultPrices: boolean,
): PriceFeed & { close(): void } {
  const settings = new PricingSettingsCache(db, () => clock.realNow());
  const reference = new ReferenceRateSource(settings, withDefaultPrices);
  const source = sourceFor(config, reference);
  return { source, reference, settings, close: () => source.close() };
}

function sourceFor(config: Config, reference: ReferenceRateSource): RateSource {
  if (config.rateSource !== 'feed' || !config.rateFeed) return reference;
  const feed = new FeedRateSource(config.rateFeed);
  feed.start();
  return feed;
}

export function currentPrices(ctx: PricingDeps): Promise<PriceSnapshot> {
  return ctx.prices.source.current();
}

/** The fee schedule in force: the operator's row, else the default; re-read at most once a second. */
export async function currentFeeSchedule(ctx: PricingDeps): Promise<FeeSchedule> {
  return (await ctx.prices.settings.current()).schedule;
}

/**
 * The operator's settings as this process last read them, with the generation they are at: a
 * caller that stores a quote made with them checks that generation in the same statement.
 */
export function pricingSettings(ctx: PricingDeps): Promise<PricingSettings> {
  return ctx.prices.settings.current();
}

/** The prices to quote with alongside `settings`: the reference table of that same read, or the feed's. */
export async function pricesWith(ctx: PricingDeps, settings: PricingSettings): Promise<PriceSnapshot> {
  const runtime = ctx.prices;
  return runtime.source === runtime.reference
    ? runtime.reference.snapshotFor(settings)
    : runtime.source.current();
}

/** After a stored quote found its generation outdated: read the settings again now. */
export function forgetPricingSettings(ctx: PricingDeps): void {
  ctx.prices.settings.invalidate();
}

/** Prices and fees as of now, then the one quote function. */
export async function quote(ctx: PricingDeps, input: QuoteInput): Promise<PricedQuote> {
  const settings = await pricingSettings(ctx);
  return computeQuote(input, await pricesWith(ctx, settings), settings.schedule);
}

export interface Sale {
  paymentMethod?: string | undefined;
  sourceCurrency?: string | undefined;
  destCurrency?: string | undefined;
}

/**
 * Refuses what no fee schedule entry sells: an unknown payment method, a source currency no
 * (given) method charges, a destination currency without a network fee. For requests that lock
 * no quote, so they may name only some of these.
 */
export async function assertSellable(ctx: PricingDeps, sale: Sale) {
  assertSellableBy(await currentFeeSchedule(ctx), sale);
}

/** The same check against a schedule the caller already holds. */
export function assertSellableBy(schedule: FeeSchedule, sale: Sale): void {
  const { paymentMethod, sourceCurrency, destCurrency } = sale;
  if (paymentMethod !== undefined && !schedule.methods.has(paymentMethod)) {
    throw pricingErrors.unsupportedPaymentMethod('paymentMethod', paymentMethod);
  }
  const methods = paymentMethod !== undefined ? [paymentMethod] : [...schedule.methods.keys()];
  if (
    sourceCurrency !== undefined &&
    !methods.some((method) => schedule.methods.get(method)?.has(sourceCurrency))
  ) {
    throw pricingErrors.unsupportedCurrency('sourceCurrency', sourceCurrency, 'cannot be paid in');
  }
  if (destCurrency !== undefined && !schedule.networkFees.has(destCurrency)) {
    throw pricingErrors.unsupportedCurrency('destCurrency', destCurrency, 'is not sold');
  }
}

export async function ratesAs(ctx: PricingDeps, view: RatesView, format?: RatesFormat): Promise<Buffer> {
  return ratesJson(await currentPrices(ctx), view, format);
}

/** PUT /operator/v1/rates: upserts reference prices; the change and its audit row commit together. */
export async function setReferencePrices(ctx: PricingDeps, call: OperatorAct, body: unknown) {
  const prices = parseUsdPrices(body, 'reject');
  const entries = [...prices].map(([currency, price]) => ({ currency, usdPrice: price.toFixed() }));
  await withTransaction(ctx.db, async (tx) => {
    await upsertReferencePrices(tx, entries);
    await auditOperatorChange(tx, call, 'pricing:reference', {
      prices: Object.fromEntries(entries.map((entry) => [entry.currency, entry.usdPrice])),
    });
  });
  ctx.prices.settings.invalidate();
  return referencePrices(ctx);
}

/** The reference table in force, `{BTC: {USD: 60000}}`, with where each price comes from. */
export async function referencePrices(ctx: PricingDeps) {
  const table: Record<string, { USD: string }> = {};
  if (ctx.prices.reference.withDefaults) {
    for (const [code, price] of Object.entries(DEFAULT_USD_PRICES)) table[code] = { USD: price };
  }
  for (const row of await readReferencePrices(ctx.db)) table[row.currency] = { USD: row.usd_price };
  return { source: ctx.config.rateSource, prices: table };
}

export async function setFeeSchedule(ctx: PricingDeps, call: OperatorAct, body: FeeScheduleJson) {
  const schedule = parseFeeSchedule(body);
  const json = feeScheduleJson(schedule);
  await withTransaction(ctx.db, async (tx) => {
    await writeFeeSchedule(tx, json);
    await auditOperatorChange(tx, call, 'pricing:fees', { schedule: json });
  });
  ctx.prices.settings.invalidate();
  return json;
}

export async function feeScheduleView(ctx: PricingDeps): Promise<FeeScheduleJson> {
  return feeScheduleJson(await currentFeeSchedule(ctx));
}
