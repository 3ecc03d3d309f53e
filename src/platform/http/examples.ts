/**
 * Values the OpenAPI examples of every module share (what /docs shows a partner), in our
 * formats: ids are a prefix and 11 characters of ids.ts's alphabet, reservations 20 of them, keys
 * `AK-`/`SK-` and four groups of 8. Most are Wyre's own published sample values
 * (from Wyre's API documentation), so a partner porting a Wyre integration recognises them;
 * test/ops/openapi-completeness.test.ts checks every id in every example against ids.ts.
 * Amounts are what this service answers for them with its default prices and fees.
 */

/** Ids of one partner's world: the master account, its sub-account and users, their objects. */
export const EXAMPLE_IDS = {
  /** The partner's master account; its `PT_` partner id carries the same 11 characters. */
  partnerAccount: 'AC_UUEJLH74VEN',
  partner: 'PT_UUEJLH74VEN',
  subAccount: 'AC_YNWFWXDW3AG',
  user: 'US_QYAFJ98CQP7',
  otherUser: 'US_EPVVU4PABHH',
  paymentMethod: 'PA_L64RP4JB73L',
  transfer: 'TF_QA9GMG3GAWV',
  withdrawal: 'TF_8DFAFFTPQVA',
  /** The transfer that delivered a completed wallet order's crypto. */
  orderTransfer: 'TF_2GESQYHZPD3',
  walletOrder: 'WO_PQAG8JHTA2F',
  subscription: 'DA_GD894ANFUGC',
  delivery: 'CB_DH22UQFAJLV',
  chainTx: 'TR_QDSDLSYJF7K',
  reservation: '3ZFYNFGUHBER9MZW7MND',
} as const;

/** Credentials of the samples (Wyre's published test values, never live ones). */
export const EXAMPLE_KEYS = {
  apiKey: 'AK-RTB86CZB-R6M3Y4XC-3JDWPCV7-LZ9896QM',
  secretKey: 'SK-X6ABP7DG-2N92PBW3-XNQPM46V-3LLWGARL',
  webhookSecret: 'WH-5N5SZ4JP-YSBZ2AX8-666T3BTC-K4YSVHSR',
  /** A decentralized session secret as a client generates it (32 random characters). */
  sessionSecret: 'hJ7rQ2vN9xK4mP8sT3wY6zB5cD1fG0aL',
} as const;

/** 2026-03-15T10:00:00Z, and moments after it: the samples' clock, in epoch milliseconds. */
export const EXAMPLE_TIME = 1_773_568_800_000;
export const exampleTime = (secondsLater: number) => EXAMPLE_TIME + secondsLater * 1000;
/** Reservations, locked quotes and unconfirmed transfers last 15 minutes. */
export const QUOTE_LIFETIME_SECONDS = 15 * 60;

export const EXAMPLE_PUBLIC_URL = 'https://api.rampart.example.com';

export const EXAMPLE_CHAIN = {
  /** A partner's wallet (Wyre's sample Ethereum address). */
  ethAddress: '0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413',
  /** The example user's deposit addresses, as the sandbox chain derives them. */
  userEthDeposit: '0xa474f1BF0a746aaCc9f14A6a6335AAeC45373F54',
  userBtcDeposit: 'tb1qkxw274ajklf0m60uuftsg9ve78a37zl678xak3',
  /** The custody hot wallet a withdrawal leaves from. */
  hotWallet: '0x92658A3d0Fe2a9f708617d1993e9c348e37961cA',
} as const;

/** The example user (Wyre's Users API sample person), her home and her card's billing address. */
export const EXAMPLE_PERSON = {
  firstName: 'Deandre',
  lastName: 'Reynolds',
  dateOfBirth: '1990-01-01',
  email: 'deandre@example.com',
  phone: '+16508155122',
  residenceAddress: {
    street1: '1 Market St',
    city: 'San Francisco',
    state: 'CA',
    postalCode: '94105',
    country: 'US',
  },
  billingAddress: {
    street1: '123 Test Ave',
    city: 'Portland',
    state: 'OR',
    postalCode: '97209',
    country: 'US',
  },
  ipAddress: '203.0.113.7',
} as const;

/**
 * One card purchase: 100 USD of ETH at the default reference price (3000 USD per ETH), with the
 * default debit-card fee (2.9% + 0.30 USD) and ETH network fee (0.0004 ETH) on top.
 */
export const EXAMPLE_PURCHASE = {
  sourceCurrency: 'USD',
  destCurrency: 'ETH',
  purchaseAmount: 100,
  sourceAmount: 104.4,
  destAmount: 0.03333333333333333,
  exchangeRate: 0.0003333333333333333,
  fees: { USD: 3.2, ETH: 0.0004 },
  equivalencies: {
    USD: 104.4,
    EUR: 96.66,
    GBP: 82.2,
    CAD: 143.01,
    ETH: 0.0348,
    BTC: 0.00174,
  },
} as const;

/** The envelope of a refused request, as /docs shows it for every error answer. */
export const EXAMPLE_ERROR = {
  language: 'en' as const,
  exceptionId: 'test_TQCJZP',
  compositeType: '',
  subType: '',
  errorCode: 'validation.invalidValue',
  message: 'Field sourceCurrency must be a supported currency.',
  type: 'ValidationException',
  transient: false,
  problematicField: 'sourceCurrency',
};
