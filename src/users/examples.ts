import {
  EXAMPLE_CHAIN,
  EXAMPLE_IDS,
  EXAMPLE_PERSON,
  EXAMPLE_PUBLIC_URL,
  EXAMPLE_TIME,
  exampleTime,
} from '../platform/http/examples.ts';

/** OpenAPI examples of the Users API: users, their bank accounts, and the operator's KYC review. */

const { firstName, lastName, dateOfBirth, email, phone, residenceAddress } = EXAMPLE_PERSON;

/** Everything the TRANSFER scope requires, with deposit addresses on two chains. */
export const createUserRequest = {
  fields: { firstName, lastName, dateOfBirth, residenceAddress: { ...residenceAddress } },
  scopes: ['TRANSFER'],
  blockchains: ['ETH', 'BTC'],
};

export const updateUserRequest = { fields: { email, cellphone: phone } };

type FieldStatus = 'OPEN' | 'SUBMITTED';
const submitted = (value: unknown) => ({ value, status: 'SUBMITTED' as FieldStatus, error: null });
const open = () => ({ value: null, status: 'OPEN' as FieldStatus, error: null });

const userBase = {
  id: EXAMPLE_IDS.user,
  status: 'APPROVED',
  partnerId: EXAMPLE_IDS.partner,
  type: 'INDIVIDUAL',
  createdAt: EXAMPLE_TIME,
  depositAddresses: { BTC: EXAMPLE_CHAIN.userBtcDeposit, ETH: EXAMPLE_CHAIN.userEthDeposit },
  totalBalances: {},
  availableBalances: {},
  scopes: {
    TRANSFER: {
      status: 'APPROVED',
      openFields: [],
      onboardingRequired: false,
      onboardingStatus: 'OPEN',
      paymentMethodRequired: false,
    },
  },
};

/** Right after createUserRequest (the sandbox approves a complete TRANSFER scope at once). */
export const createdUserAnswer = {
  ...userBase,
  fields: {
    firstName: submitted(firstName),
    lastName: submitted(lastName),
    cellphone: open(),
    email: open(),
    residenceAddress: submitted({ ...residenceAddress }),
    dateOfBirth: submitted(dateOfBirth),
    governmentIdFront: open(),
    governmentIdBack: open(),
  },
};

/** After updateUserRequest, with 250 USD credited. */
export const userAnswer = {
  ...userBase,
  totalBalances: { USD: 250 },
  availableBalances: { USD: 250 },
  fields: {
    ...createdUserAnswer.fields,
    cellphone: submitted(phone),
    email: submitted(email),
  },
};

const onboardingExpiresAt = exampleTime(3600);
const onboardingToken = `${Buffer.from(`${EXAMPLE_IDS.user}.${EXAMPLE_IDS.partnerAccount}.${onboardingExpiresAt}`).toString('base64url')}.UthAxZ7cpIAqPlgO64ztOz5cuyHlceib0SjikC0tcow`;
export const onboardingAnswer = {
  userId: EXAMPLE_IDS.user,
  verificationLinkUrl: `${EXAMPLE_PUBLIC_URL}/onboarding/${onboardingToken}`,
  status: 'OPEN',
  expiresAt: onboardingExpiresAt,
};

export const createPaymentMethodRequest = {
  paymentMethodType: 'LOCAL_TRANSFER',
  country: 'US',
  currency: 'USD',
  accountNumber: '000123456789',
  routingNumber: '011000015',
  accountType: 'CHECKING' as const,
  beneficiaryType: 'INDIVIDUAL' as const,
  firstNameOnAccount: firstName,
  lastNameOnAccount: lastName,
};

/** The bank account just attached: PENDING until the (sandbox) verification makes it ACTIVE. */
export const paymentMethodAnswer = {
  id: EXAMPLE_IDS.paymentMethod,
  owner: `user:${EXAMPLE_IDS.user}`,
  createdAt: exampleTime(60),
  name: 'Checking 6789',
  defaultCurrency: 'USD',
  status: 'PENDING',
  statusMessage: null,
  waitingPrompts: [],
  linkType: 'LOCAL_TRANSFER',
  beneficiaryType: 'INDIVIDUAL',
  supportsDeposit: true,
  nameOnMethod: `${firstName} ${lastName}`,
  last4Digits: '6789',
  brand: null,
  expirationDisplay: null,
  countryCode: 'US',
  nickname: null,
  rejectionMessage: null,
  disabled: false,
  supportsPayment: true,
  chargeableCurrencies: ['USD'],
  depositableCurrencies: ['USD'],
  chargeFeeSchedule: null,
  depositFeeSchedule: null,
  minCharge: null,
  maxCharge: null,
  minDeposit: null,
  maxDeposit: null,
  documents: [],
  srn: `paymentmethod:${EXAMPLE_IDS.paymentMethod}`,
  blockchains: {},
};

export const activePaymentMethodAnswer = { ...paymentMethodAnswer, status: 'ACTIVE' };
export const disabledPaymentMethodAnswer = {
  ...paymentMethodAnswer,
  status: 'DISABLED',
  statusMessage: 'Deleted.',
  disabled: true,
};

export const paymentMethodListAnswer = {
  data: [activePaymentMethodAnswer],
  position: 0,
  recordsTotal: 1,
  recordsFiltered: 1,
};

/** A user who submitted everything DEBIT_CARD_L2 asks for, waiting for the operator. */
export const reviewListAnswer = {
  data: [
    {
      userId: EXAMPLE_IDS.user,
      scope: 'DEBIT_CARD_L2',
      status: 'PENDING',
      submittedAt: exampleTime(600),
      fields: {
        firstName: submitted(firstName),
        lastName: submitted(lastName),
        dateOfBirth: submitted(dateOfBirth),
        residenceAddress: submitted({ ...residenceAddress }),
      },
    },
  ],
};

export const reviewRequest = { decision: 'APPROVE' as const };
export const reviewAnswer = {
  userId: EXAMPLE_IDS.user,
  scopes: { TRANSFER: 'APPROVED', DEBIT_CARD_L2: 'APPROVED' },
};

export const attachBlockchainsRequest = { blockchain: 'BTC,ETH' };

/** After attach: the method's deposit addresses, keyed by currency. */
export const attachedPaymentMethodAnswer = {
  ...activePaymentMethodAnswer,
  blockchains: {
    BTC: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    ETH: '0x52908400098527886E0F7030069857D2E4169EE7',
  },
};
