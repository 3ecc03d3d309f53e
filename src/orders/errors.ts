import { chainErrors } from '../chains/index.ts';
import { ApiError, invalidValue } from '../platform/errors.ts';

/** The orders module's failures (reservations now; card orders later). */
export const orderErrors = {
  /** Wyre's code for a reservation that is used, expired or unknown (docs/contract.md, Errors). */
  illegalReservation: () =>
    new ApiError(
      'ValidationException',
      'illegalReservation',
      'This reservation is unknown, expired or already used; create a new one.',
      { problematicField: 'reservation' },
    ),
  amountRequired: () =>
    new ApiError(
      'FieldRequiredException',
      'validation.fieldRequired',
      'Field sourceAmount is required: send sourceAmount or destAmount (rate lock), amount (no rate lock), or referrerAccountId alone (the buyer picks the amount).',
      { problematicField: 'sourceAmount' },
    ),
  bothAmounts: () => invalidValue('destAmount', 'Send sourceAmount or destAmount, never both.'),
  amountWithLockedAmount: () =>
    invalidValue('amount', 'Send amount (no rate lock) or sourceAmount/destAmount (rate lock), not both.'),
  unsupportedCountry: (country: string) =>
    invalidValue('country', `Country not supported: "${country}"`, 'validation.unsupportedCountry'),
  localCurrencyElsewhere: (currency: string, countries: readonly string[]) =>
    invalidValue(
      'sourceCurrency',
      `${currency} is accepted only with a billing address in ${countries.join(', ')}.`,
      'validation.unsupportedCurrency',
    ),
  invalidReferrer: (field = 'referrerAccountId') =>
    invalidValue(
      field,
      `${field} must be your own account id or one of your sub-accounts.`,
      'validation.invalidReferrerId',
    ),
  destAccountUnknown: () =>
    invalidValue('dest', 'dest names an account that is neither yours nor one of your sub-accounts.'),
  destWrongChain: (chain: string, currency: string, chains: readonly string[]) =>
    invalidValue(
      'dest',
      `A ${chain} address cannot receive ${currency}; use ${chains.map((c) => `${c}:`).join(' or ')}.`,
      'validation.invalidAddress',
    ),
  /** The chain's node does not answer: try again later (nothing was written). */
  chainDown: (chain: string) => chainErrors.unavailable(chain),
  redirectUrl: (field: string) =>
    invalidValue(field, `Field ${field} must be an http or https URL without credentials.`),
  lockField: (name: string) =>
    invalidValue(
      'lockFields',
      `lockFields may only name lockable request fields; "${name.slice(0, 40)}" is not one.`,
    ),
  lockFieldTwice: (name: string) => invalidValue('lockFields', `lockFields names "${name}" twice.`),
  phone: () =>
    invalidValue(
      'phone',
      'Field phone must be in E.164 form, with the country code: +14155550100.',
      'validation.phoneNumRequiresCountryCode',
    ),
  email: () => invalidValue('email', 'Field email must be an e-mail address.'),
};
