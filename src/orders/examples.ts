import {
  EXAMPLE_CHAIN,
  EXAMPLE_IDS,
  EXAMPLE_PUBLIC_URL,
  EXAMPLE_PURCHASE,
  EXAMPLE_TIME,
  exampleTime,
  QUOTE_LIFETIME_SECONDS,
} from '../platform/http/examples.ts';

/** OpenAPI examples of reservations and quotes: 100 USD of ETH by debit card, rate-locked. */

const { sourceCurrency, destCurrency } = EXAMPLE_PURCHASE;
const dest = `ethereum:${EXAMPLE_CHAIN.ethAddress}`;
const redirectUrl = 'https://wallet.example.com/purchase/done';
const failureRedirectUrl = 'https://wallet.example.com/purchase/failed';
const referenceId = 'order-8812';

/** sourceAmount + the other starred fields of Wyre's docs: the quote is locked for 15 minutes. */
export const reserveRequest = {
  sourceAmount: EXAMPLE_PURCHASE.purchaseAmount,
  amountIncludeFees: false,
  paymentMethod: 'debit-card',
  sourceCurrency,
  destCurrency,
  dest,
  referrerAccountId: EXAMPLE_IDS.partnerAccount,
  country: 'US',
  redirectUrl,
  failureRedirectUrl,
  lockFields: ['dest', 'destCurrency'],
  referenceId,
};

const checkoutQuery = new URLSearchParams({
  accountId: EXAMPLE_IDS.partnerAccount,
  reservation: EXAMPLE_IDS.reservation,
  redirectUrl,
  failureRedirectUrl,
  utm_campaign: EXAMPLE_IDS.partnerAccount,
  utm_medium: 'widget',
  utm_source: 'checkout',
});

export const reserveAnswer = {
  url: `${EXAMPLE_PUBLIC_URL}/purchase?${checkoutQuery}`,
  reservation: EXAMPLE_IDS.reservation,
};

export const quoteAnswer = {
  sourceCurrency,
  sourceAmount: EXAMPLE_PURCHASE.sourceAmount,
  sourceAmountWithoutFees: EXAMPLE_PURCHASE.purchaseAmount,
  destCurrency,
  destAmount: EXAMPLE_PURCHASE.destAmount,
  exchangeRate: EXAMPLE_PURCHASE.exchangeRate,
  equivalencies: { ...EXAMPLE_PURCHASE.equivalencies },
  fees: { ...EXAMPLE_PURCHASE.fees },
};

/** The reservation of reserveRequest, as stored: what was not given reads null (names ""). */
export const reservationAnswer = {
  reservation: EXAMPLE_IDS.reservation,
  amount: null,
  sourceAmount: EXAMPLE_PURCHASE.purchaseAmount,
  destAmount: null,
  amountIncludeFees: false,
  sourceCurrency,
  destCurrency,
  dest,
  referrerAccountId: EXAMPLE_IDS.partnerAccount,
  paymentMethod: 'debit-card',
  country: 'US',
  street1: null,
  city: null,
  state: null,
  postalCode: null,
  firstName: '',
  lastName: '',
  phone: '',
  email: '',
  redirectUrl,
  failureRedirectUrl,
  autoRedirect: null,
  referenceId,
  hideTrackBtn: null,
  lockFields: ['dest', 'destCurrency'],
  quoteLockRequest: true,
  quote: quoteAnswer,
  createdAt: EXAMPLE_TIME,
  expiresAt: exampleTime(QUOTE_LIFETIME_SECONDS),
};

export const partnerQuoteRequest = {
  sourceAmount: EXAMPLE_PURCHASE.purchaseAmount,
  amountIncludeFees: false,
  sourceCurrency,
  destCurrency,
  dest,
  accountId: EXAMPLE_IDS.partnerAccount,
  country: 'US',
  walletType: 'DEBIT_CARD' as const,
};
