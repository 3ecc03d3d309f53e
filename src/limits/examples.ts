import { EXAMPLE_IDS, EXAMPLE_PERSON, EXAMPLE_PURCHASE } from '../platform/http/examples.ts';
import { SUPPORTED_COUNTRIES } from './countries.ts';

/** OpenAPI examples of card limits: Wyre's US standard tables (500 / 500 / 2,500 USD). */

export const calculateRequest = {
  accountId: EXAMPLE_IDS.partnerAccount,
  walletType: 'DEBIT_CARD' as const,
  sourceCurrency: 'USD' as const,
  address: { ...EXAMPLE_PERSON.billingAddress },
};

const spent = EXAMPLE_PURCHASE.sourceAmount;
/** The billing address after the example purchase (104.40 USD) went through. */
export const limitsAnswer = {
  dailyTotalSpent: spent,
  weeklyTotalSpent: spent,
  yearlyTotalSpent: spent,
  dailyTotal: 500,
  weeklyTotal: 500,
  yearlyTotal: 2500,
  dailyRemaining: 395.59,
  weeklyRemaining: 395.59,
  yearlyRemaining: 2395.59,
};

/** A few entries of the real list, one per kind of region label. */
export const supportedCountriesAnswer = SUPPORTED_COUNTRIES.filter(({ code }) =>
  ['CA', 'DE', 'IE', 'US'].includes(code),
);

export const overrideRequest = { STANDARD: { daily: '1000', weekly: '2500', yearly: '25000' } };
export const overrideAnswer = {
  accountId: EXAMPLE_IDS.partnerAccount,
  STANDARD: { daily: 1000, weekly: 2500, yearly: 25000 },
  DEBIT_CARD_L2: null,
};

const usd = (limit: number, left: number) => ({
  USD: { in: limit, out: null, availIn: left, availOut: null },
});
/** A user's limits after the example purchase: Wyre's US standard tables. */
export const limitsByContextAnswer = {
  ACCOUNT: {},
  ACH: {},
  DEBIT_CARD: {
    '24': usd(500, 500 - spent),
    '168': usd(500, 500 - spent),
    '8760': usd(2500, 2500 - spent),
  },
};
