/**
 * Where card purchases are sold. Billing countries are the list of docs/contract.md (Card limits). The card currencies
 * (USD, EUR, GBP, CAD, AUD) are charged from any of them; a local presentment currency is
 * charged only to a billing address where it is the local money (docs/contract.md, Reservations and quotes; a Norwegian
 * currency with a Norwegian address is accepted), since that is what makes it "localized".
 */
export const BILLING_COUNTRIES: ReadonlySet<string> = new Set([
  'US',
  'AU',
  'AT',
  'BE',
  'CA',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HK',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MX',
  'NL',
  'NZ',
  'NO',
  'PL',
  'PT',
  'SK',
  'SI',
  'ES',
  'SE',
  'CH',
]);

export const LOCAL_CURRENCY_COUNTRIES: Readonly<Record<string, readonly string[]>> = {
  NOK: ['NO'],
  SEK: ['SE'],
  DKK: ['DK'],
  CHF: ['CH'],
  PLN: ['PL'],
  CZK: ['CZ'],
  MXN: ['MX'],
  NZD: ['NZ'],
  HKD: ['HK'],
};

/** Fields a reservation may lock (the list of docs/contract.md, Reservations and quotes, plus the two rate-lock amounts). */
export const LOCKABLE_FIELDS: ReadonlySet<string> = new Set([
  'amount',
  'sourceAmount',
  'destAmount',
  'sourceCurrency',
  'destCurrency',
  'dest',
  'street1',
  'city',
  'state',
  'postalCode',
  'country',
  'firstName',
  'lastName',
  'phone',
  'email',
]);

/** docs/contract.md, Reservations and quotes: with sourceAmount or destAmount, every one of these, in this order. */
export const RATE_LOCK_FIELDS = [
  'amountIncludeFees',
  'paymentMethod',
  'sourceCurrency',
  'destCurrency',
  'dest',
  'referrerAccountId',
  'country',
] as const;

/** Reservations and their locked quotes live 15 minutes (docs/contract.md, Reservations and quotes). */
export const RESERVATION_LIFETIME_MS = 15 * 60 * 1000;
