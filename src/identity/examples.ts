import {
  EXAMPLE_IDS,
  EXAMPLE_KEYS,
  EXAMPLE_PERSON,
  EXAMPLE_TIME,
  exampleTime,
} from '../platform/http/examples.ts';

/** OpenAPI examples of the identity routes (accounts, API keys, sessions, master accounts). */

export const sessionRequest = { secretKey: EXAMPLE_KEYS.sessionSecret };
export const sessionAnswer = { apiKey: 'AK-2ZR5J8E7-QB6HRA5H-GJLCPL9D-GVKTW7VP', authenticatedAs: null };

export const createAccountRequest = {
  type: 'INDIVIDUAL' as const,
  country: 'US',
  subaccount: true,
  profileFields: [
    { fieldId: 'individualLegalName', value: `${EXAMPLE_PERSON.firstName} ${EXAMPLE_PERSON.lastName}` },
    { fieldId: 'individualEmail', value: EXAMPLE_PERSON.email },
  ],
};

export const updateAccountRequest = {
  profileFields: [
    { fieldId: 'individualCellphoneNumber', value: EXAMPLE_PERSON.phone },
    { fieldId: 'individualResidenceAddress', value: { ...EXAMPLE_PERSON.residenceAddress } },
  ],
};

type FieldStatus = 'OPEN' | 'PENDING' | 'APPROVED';
const field = (fieldId: string, fieldType: string, value: unknown, status: FieldStatus) => ({
  fieldId,
  fieldType,
  value,
  note: null,
  status,
});

/** The sub-account after updateAccountRequest: submitted fields PENDING review, the rest OPEN. */
export const accountAnswer = {
  id: EXAMPLE_IDS.subAccount,
  status: 'OPEN',
  type: 'INDIVIDUAL',
  country: 'US',
  createdAt: EXAMPLE_TIME,
  depositAddresses: {},
  totalBalances: {},
  availableBalances: {},
  profileFields: [
    field('individualLegalName', 'STRING', 'Deandre Reynolds', 'PENDING'),
    field('individualEmail', 'EMAIL', EXAMPLE_PERSON.email, 'PENDING'),
    field('individualCellphoneNumber', 'CELLPHONE', EXAMPLE_PERSON.phone, 'PENDING'),
    field('individualDateOfBirth', 'DATE', null, 'OPEN'),
    field('individualSsn', 'STRING', null, 'OPEN'),
    field('individualResidenceAddress', 'ADDRESS', { ...EXAMPLE_PERSON.residenceAddress }, 'PENDING'),
    field('individualGovernmentId', 'DOCUMENT', null, 'OPEN'),
    field('individualProofOfAddress', 'DOCUMENT', null, 'OPEN'),
    field('individualSourceOfFunds', 'PAYMENT_METHOD', null, 'OPEN'),
  ],
  subaccount: true,
};

export const createKeyRequest = {
  desc: 'Payments backend',
  type: 'FULL' as const,
  ipWhitelist: ['203.0.113.0/24'],
};

export const createdKeyAnswer = {
  apiKey: EXAMPLE_KEYS.apiKey,
  secretKey: EXAMPLE_KEYS.secretKey,
  owner: `account:${EXAMPLE_IDS.partnerAccount}`,
  type: 'FULL',
  desc: 'Payments backend',
  ipWhitelist: ['203.0.113.0/24'],
};

export const masterAccountRequest = { name: 'Acme Wallet Inc.', country: 'US', usersApi: true };
export const createdMasterAnswer = {
  accountId: EXAMPLE_IDS.partnerAccount,
  apiKey: EXAMPLE_KEYS.apiKey,
  secretKey: EXAMPLE_KEYS.secretKey,
  webhookSecret: EXAMPLE_KEYS.webhookSecret,
};

export const usersApiRequest = { enabled: true };
export const usersApiAnswer = { accountId: EXAMPLE_IDS.partnerAccount, usersApi: true };

export const operatorKeyRequest = { desc: 'replacement for a lost secret', type: 'FULL' as const };
export const operatorKeyAnswer = {
  ...createdKeyAnswer,
  desc: 'replacement for a lost secret',
  ipWhitelist: [],
};
export const keyListingAnswer = {
  data: [
    {
      apiKey: 'AK-2ZR5J8E7-QB6HRA5H-GJLCPL9D-GVKTW7VP',
      type: 'FULL',
      desc: 'first key',
      ipWhitelist: [],
      origin: 'operator',
      createdAt: EXAMPLE_TIME,
    },
    {
      apiKey: EXAMPLE_KEYS.apiKey,
      type: 'FULL',
      desc: 'replacement for a lost secret',
      ipWhitelist: [],
      origin: 'operator',
      createdAt: exampleTime(3600),
    },
  ],
};

/** The sub-account after a government id upload: the document's id in the field, PENDING review. */
export const documentUploadedAnswer = {
  ...accountAnswer,
  profileFields: accountAnswer.profileFields.map((entry) =>
    entry.fieldId === 'individualGovernmentId'
      ? field('individualGovernmentId', 'DOCUMENT', ['DO_7QK4M2XHRZP'], 'PENDING')
      : entry,
  ),
};
