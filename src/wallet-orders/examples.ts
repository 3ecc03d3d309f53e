import {
  EXAMPLE_CHAIN,
  EXAMPLE_IDS,
  EXAMPLE_PERSON,
  EXAMPLE_PUBLIC_URL,
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

/** The full view of the completed order: no failure, so no failure details. */
export const fullOrderAnswer = {
  ...completeOrderAnswer,
  errorCategory: null,
  paymentNetworkErrorCode: null,
  internalErrorCode: null,
};

/** A page of one account's orders. */
export const orderListAnswer = { data: [fullOrderAnswer], position: 0, recordsTotal: 1, recordsFiltered: 1 };

/** The issuer asks for 3-D Secure; this page sends the buyer on to the reservation's URLs. */
export const redirectionAnswer = {
  walletOrderId: EXAMPLE_IDS.walletOrder,
  smsNeeded: false,
  card2faNeeded: false,
  authorization3dsUrl: `${EXAMPLE_PUBLIC_URL}/sandbox/3ds/${EXAMPLE_IDS.walletOrder}/q2vJ8l0cPz3kXo9f1YwR6tHbNsAeUgLm?redirect=reservation`,
};

/** Wyre's Apple Pay body as a wallet app sends it; the sandbox reads the card from `displayName`. */
export const applePayRequest = {
  partnerId: EXAMPLE_IDS.partnerAccount,
  payload: {
    orderRequest: {
      amount: String(EXAMPLE_PURCHASE.sourceAmount),
      sourceCurrency: EXAMPLE_PURCHASE.sourceCurrency,
      destCurrency: EXAMPLE_PURCHASE.destCurrency,
      dest,
      referrerAccountId: EXAMPLE_IDS.partnerAccount,
      referenceId,
      reservationId: EXAMPLE_IDS.reservation,
    },
    paymentObject: {
      billingContact: {
        givenName: EXAMPLE_PERSON.firstName,
        familyName: EXAMPLE_PERSON.lastName,
        addressLines: [EXAMPLE_PERSON.billingAddress.street1],
        locality: EXAMPLE_PERSON.billingAddress.city,
        administrativeArea: EXAMPLE_PERSON.billingAddress.state,
        postalCode: EXAMPLE_PERSON.billingAddress.postalCode,
        countryCode: EXAMPLE_PERSON.billingAddress.country,
      },
      shippingContact: { emailAddress: EXAMPLE_PERSON.email, phoneNumber: EXAMPLE_PERSON.phone },
      token: {
        paymentData: { version: 'EC_v1', data: 'c2FuZGJveA==', signature: 'c2lnbmF0dXJl', header: {} },
        paymentMethod: { displayName: 'Visa 1111', network: 'Visa', type: 'debit' },
        transactionIdentifier: '5394A1B2C3D4E5F6',
      },
    },
  },
};
export const applePayAnswer = { id: EXAMPLE_IDS.walletOrder };
