/**
 * OpenAPI examples of prices and fees: the sandbox's default reference prices (USD per unit)
 * and fee schedule, which the other modules' example amounts are computed with.
 */

/** GET /v3/rates (DIVISOR): sourceAmount / rate = destAmount; a few of the pairs. */
export const ratesAnswer = {
  USDBTC: 60000,
  USDETH: 3000,
  USDUSDC: 1,
  USDEUR: 1.08,
  BTCUSD: 0.000016666666666666667,
  ETHUSD: 0.0003333333333333333,
  EURUSD: 0.9259259259259259,
  ETHBTC: 20,
};

export const referencePricesRequest = { BTC: { USD: '60000' }, ETH: { USD: '3000' } };
export const referencePricesAnswer = {
  source: 'reference',
  prices: {
    BTC: { USD: '60000' },
    ETH: { USD: '3000' },
    USDC: { USD: '1' },
    EUR: { USD: '1.08' },
    GBP: { USD: '1.27' },
  },
};

const cardFees = {
  USD: { percent: '2.9', flat: '0.3', minOrder: '5', maxOrder: '5000' },
  EUR: { percent: '2.9', flat: '0.3', minOrder: '5', maxOrder: '4500' },
  GBP: { percent: '2.9', flat: '0.25', minOrder: '5', maxOrder: '4000' },
};

/** Debit card and Apple Pay in three source currencies, and the network fee of each chain. */
export const feeScheduleExample = {
  methods: { 'debit-card': cardFees, 'apple-pay': cardFees },
  networkFees: { BTC: '0.00002', ETH: '0.0004', USDC: '1' },
};
