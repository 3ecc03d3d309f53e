import { ApiError, invalidValue } from '../platform/errors.ts';

/** Pricing's failures. Stale or missing prices are transient: the same request may succeed later. */
export const pricingErrors = {
  stalePrices: (ageMs: number | undefined) =>
    new ApiError(
      'ServiceUnavailableException',
      'rates.stale',
      ageMs === undefined
        ? 'No prices are available yet; try again shortly.'
        : `Prices are ${Math.round(ageMs / 1000)} s old, too old to quote; try again shortly.`,
      { transient: true },
    ),
  /** Prices or fees changed again each time a quote was about to be stored (the operator is busy). */
  changing: () =>
    new ApiError(
      'ServiceUnavailableException',
      'rates.stale',
      'Prices changed while quoting; try again shortly.',
      { transient: true },
    ),
  noPrice: (field: string, currency: string) =>
    invalidValue(
      field,
      `No price for ${currency}: this pair cannot be quoted.`,
      'validation.unsupportedCurrency',
    ),
  unsupportedPaymentMethod: (field: string, method: string) =>
    invalidValue(
      field,
      `Payment method "${method}" is not supported.`,
      'validation.unsupportedPaymentMethod',
    ),
  unsupportedCurrency: (field: string, currency: string, why: string) =>
    invalidValue(field, `Currency "${currency}" ${why}.`, 'validation.unsupportedCurrency'),
  orderTooSmall: (field: string, minimum: string, currency: string) =>
    invalidValue(
      field,
      `The order is below the minimum of ${minimum} ${currency} (charged amount, fees included).`,
      'validation.transactionAmountTooSmall',
    ),
  orderTooLarge: (field: string, maximum: string, currency: string) =>
    invalidValue(
      field,
      `The order is above the maximum of ${maximum} ${currency} (charged amount, fees included).`,
      'validation.transactionAmountTooLarge',
    ),
  feesExceedAmount: (field: string) =>
    invalidValue(field, 'The amount does not cover the fees.', 'validation.transactionAmountTooSmall'),
};
