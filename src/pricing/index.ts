/** The public face of pricing/: what routes and other domains use. Inside pricing/, files import each other directly. */

export { pricingErrors } from './errors.ts';
export type { FeeRule, FeeSchedule, FeeScheduleJson } from './fees.ts';
export { pricingOperatorRoutes } from './operator-routes.ts';
export type { PriceSnapshot } from './prices.ts';
export { computeQuote, type PricedQuote, type Quote, type QuoteInput } from './quote.ts';
export type { RateDerivation } from './rates.ts';
export { pricingRoutes } from './routes.ts';
export {
  assertSellable,
  assertSellableBy,
  createPriceFeed,
  currentFeeSchedule,
  currentPrices,
  feeScheduleView,
  forgetPricingSettings,
  type PriceFeed,
  type PricingDeps,
  pricesWith,
  pricingSettings,
  quote,
  referencePrices,
  setFeeSchedule,
  setReferencePrices,
} from './service.ts';
export { atCurrentGeneration } from './store.ts';
