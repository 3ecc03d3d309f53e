import { Type } from 'typebox';
import { EXAMPLE_IDS, EXAMPLE_PERSON, EXAMPLE_TIME } from '../platform/http/examples.ts';

/** The legacy v2 account (legacy-account-view.ts), its schema and its OpenAPI example. */

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Amounts = Type.Record(Type.String(), Type.Number());

const Profile = Type.Object(
  {
    firstName: NullableString,
    lastName: NullableString,
    language: Type.String(),
    address: Type.Unknown(),
    businessAccount: Type.Boolean(),
    taxId: Type.Null(),
    doingBusinessAs: Type.Null(),
    website: Type.Null(),
    ssn: Type.Null(),
    dateOfBirth: Type.Unknown(),
    notifyEmail: Type.Null(),
    notifyCellphone: Type.Null(),
    notifyApnsDevice: Type.Null(),
    onboardingDashboardCompleted: Type.Null(),
    displayCurrency: Type.Null(),
    cpfNumber: Type.Null(),
    type: Type.String(),
    vertical: Type.Null(),
    ethereumVerificationAddress: Type.Null(),
    country: Type.String(),
    name: NullableString,
  },
  { additionalProperties: false },
);

const Ledger = Type.Object(
  {
    srn: Type.String(),
    currency: Type.String(),
    balance: Type.Number({ description: 'Available now' }),
    pendingBalance: Type.Number({ description: 'Held by unconfirmed transfers' }),
    totalBalance: Type.Number(),
  },
  { additionalProperties: false },
);

const Empty = Type.Array(Type.Unknown(), { maxItems: 0 });

export const LegacyAccount = Type.Object(
  {
    id: Type.String(),
    createdAt: Type.Number(),
    updatedAt: Type.Null(),
    referralUrl: Type.Null(),
    apnsToken: Type.Null(),
    tangoCardCustomer: Type.Null(),
    status: Type.String(),
    profile: Profile,
    paymentMethods: Empty,
    identities: Empty,
    depositAddresses: Type.Record(Type.String(), Type.String()),
    ledgers: Type.Array(Ledger),
    session: Type.Null(),
    documents: Empty,
    srnLimits: Empty,
    pusherChannel: Type.Null(),
    email: Type.Unknown(),
    cellphone: Type.Unknown(),
    srn: Type.String(),
    verified: Type.Boolean(),
    loginAt: Type.Null(),
    lastLoginIp: Type.Null(),
    lastLoginLocation: Type.Null(),
    totalBalances: Amounts,
    availableBalances: Amounts,
    type: Type.String(),
  },
  { additionalProperties: false },
);

export const LegacyAccountParams = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 64 }) });

const srn = `account:${EXAMPLE_IDS.subAccount}`;

/** The example sub-account holding 125 USD, 25 of them held by an unconfirmed transfer. */
export const legacyAccountAnswer = {
  id: EXAMPLE_IDS.subAccount,
  createdAt: EXAMPLE_TIME,
  updatedAt: null,
  referralUrl: null,
  apnsToken: null,
  tangoCardCustomer: null,
  status: 'OPEN',
  profile: {
    firstName: EXAMPLE_PERSON.firstName,
    lastName: EXAMPLE_PERSON.lastName,
    language: 'en',
    address: { ...EXAMPLE_PERSON.residenceAddress },
    businessAccount: false,
    taxId: null,
    doingBusinessAs: null,
    website: null,
    ssn: null,
    dateOfBirth: null,
    notifyEmail: null,
    notifyCellphone: null,
    notifyApnsDevice: null,
    onboardingDashboardCompleted: null,
    displayCurrency: null,
    cpfNumber: null,
    type: 'INDIVIDUAL',
    vertical: null,
    ethereumVerificationAddress: null,
    country: 'US',
    name: `${EXAMPLE_PERSON.firstName} ${EXAMPLE_PERSON.lastName}`,
  },
  paymentMethods: [],
  identities: [],
  depositAddresses: {},
  ledgers: [{ srn, currency: 'USD', balance: 100, pendingBalance: 25, totalBalance: 125 }],
  session: null,
  documents: [],
  srnLimits: [],
  pusherChannel: null,
  email: EXAMPLE_PERSON.email,
  cellphone: EXAMPLE_PERSON.phone,
  srn,
  verified: false,
  loginAt: null,
  lastLoginIp: null,
  lastLoginLocation: null,
  totalBalances: { USD: 125 },
  availableBalances: { USD: 100 },
  type: 'INDIVIDUAL',
};
