/**
 * The sandbox's shipped reference prices, USD per unit (late-2024 levels; round numbers so
 * hand-checked examples stay readable). Operator rows (PUT /operator/v1/rates) override them;
 * production ignores this table and quotes only prices the operator or the feed supplied.
 */
export const DEFAULT_USD_PRICES: Readonly<Record<string, string>> = {
  BTC: '60000',
  ETH: '3000',
  USDC: '1',
  DAI: '1',
  MATIC: '0.5',
  AVAX: '25',
  EUR: '1.08',
  GBP: '1.27',
  CAD: '0.73',
  AUD: '0.66',
  NOK: '0.092',
  SEK: '0.095',
  DKK: '0.145',
  CHF: '1.13',
  PLN: '0.25',
  CZK: '0.043',
  MXN: '0.05',
  NZD: '0.6',
  HKD: '0.128',
  BRL: '0.18',
  JPY: '0.0067',
};
