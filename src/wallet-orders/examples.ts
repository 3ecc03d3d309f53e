import {
  EXAMPLE_CHAIN,
  EXAMPLE_IDS,
  EXAMPLE_PERSON,
  EXAMPLE_PURCHASE,
  EXAMPLE_TIME,
  exampleTime,
} from '../platform/http/examples.ts';

/**
 * OpenAPI examples of white-label card orders: the reservation of orders/examples.ts paid with
 * the sandbox's approving Visa debit card (Wyre's documented test card).
 */

const dest = `ethereum:${EXAMPLE_CHAIN.ethAddress}`;
const referenceId = 'order-8812';

export const processRequest = {
  debitCard: { number: '4111111111111111', year: '2030', month: '01', cvv: '123' },
  reservationId: EXAMPLE_IDS.reservation,
  amount: String(EXAMPLE_PURCHASE.sourceAmount),
  sourceCurrency: EXAMPLE_PURCHASE.sourceCurrency,
  destCurrency: EXAMPLE_PURCHASE.destCurrency,
  dest,
  referrerAccountId: EXAMPLE_IDS.partnerAccount,
  givenName: EXAMPLE_PERSON.firstName,
  familyName: EXAMPLE_PERSON.lastName,
  email: EXAMPLE_PERSON.email,
  phone: EXAMPLE_PERSON.phone,
  referenceId,
  address: { ...EXAMPLE_PERSON.billingAddress },
  ipAddress: EXAMPLE_PERSON.ipAddress,
  trigger3ds: false,
};

/** Just created: the card is authorised and the checks are running. */
export const runningOrderAnswer = {
  id: EXAMPLE_IDS.walletOrder,
  createdAt: EXAMPLE_TIME,
  owner: `account:${EXAMPLE_IDS.partnerAccount}`,
  status: 'RUNNING_CHECKS',
  orderType: 'DOMESTIC',
  sourceAmount: EXAMPLE_PURCHASE.sourceAmount,
  purchaseAmount: EXAMPLE_PURCHASE.purchaseAmount,
  sourceCurrency: EXAMPLE_PURCHASE.sourceCurrency,
  destCurrency: EXAMPLE_PURCHASE.destCurrency,
  destAmount: EXAMPLE_PURCHASE.destAmount,
  exchangeRate: EXAMPLE_PURCHASE.exchangeRate,
  fees: { ...EXAMPLE_PURCHASE.fees },
  transferId: null,
  dest,
  email: EXAMPLE_PERSON.email,
  authCodesRequested: false,
  paymentMethodName: 'Visa ending 1111',
  accountId: EXAMPLE_IDS.partnerAccount,
  walletType: 'DEBIT_CARD',
  errorMessage: null,
  errorCode: null,
  failureReason: null,
  referenceId,
  reservationId: EXAMPLE_IDS.reservation,
  updatedAt: EXAMPLE_TIME,
  completedAt: null,
  smsSentAt: null,
  smsDeliveredAt: null,
  smsRepliedAt: null,
  smsReplyBody: null,
  smsTriggerAt: null,
};

/** The same order once the ETH arrived on chain. */
export const completeOrderAnswer = {
  ...runningOrderAnswer,
  status: 'COMPLETE',
  transferId: EXAMPLE_IDS.orderTransfer,
  updatedAt: exampleTime(42),
  completedAt: exampleTime(42),
};

/** Wyre's sample: the issuer asks for the SMS code only. */
export const authorizationAnswer = {
  walletOrderId: EXAMPLE_IDS.walletOrder,
  smsNeeded: true,
  card2faNeeded: false,
  authorization3dsUrl: null,
};

/** The sandbox's codes are always 000000. */
export const authorizeRequest = {
  type: 'SMS' as const,
  walletOrderId: EXAMPLE_IDS.walletOrder,
  reservation: EXAMPLE_IDS.reservation,
  sms: '000000',
};
export const authorizeAnswer = { walletOrderId: EXAMPLE_IDS.walletOrder, success: true };

export const webhookRequest = {
  owner: `account:${EXAMPLE_IDS.partnerAccount}`,
  webhook: 'https://wallet.example.com/hooks/wallet-orders',
};
