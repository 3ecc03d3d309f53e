import { type Static, Type } from 'typebox';
import { WyreBoolean } from '../platform/http/wyre-types.ts';

const UserId = Type.String({ minLength: 1, maxLength: 64, description: 'User id, e.g. US_YQG97JUANCF' });
const ScopeNameText = Type.String({ maxLength: 32, description: 'TRANSFER, ACH or DEBIT_CARD_L2' });

const FieldValues = Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), {
  maxProperties: 20,
  description: 'fieldId → value (docs/contract.md, Users and KYC); documents are uploaded separately',
});

export const CreateUserBody = Type.Object(
  {
    fields: Type.Optional(FieldValues),
    scopes: Type.Optional(Type.Array(ScopeNameText, { maxItems: 3 })),
    blockchains: Type.Optional(
      Type.Array(Type.String({ maxLength: 16 }), {
        maxItems: 10,
        description: 'BTC, ETH, MATIC, AVAX (AVAXC) or ALL',
      }),
    ),
    immediate: Type.Optional(WyreBoolean()),
    partnerId: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    fields: Type.Optional(FieldValues),
    scopes: Type.Optional(Type.Array(ScopeNameText, { maxItems: 3 })),
    blockchains: Type.Optional(Type.Array(Type.String({ maxLength: 16 }), { maxItems: 10 })),
    immediate: Type.Optional(WyreBoolean()),
  },
  { additionalProperties: false },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UserParams = Type.Object({ userId: UserId });
export const UserQuery = Type.Object({
  scopes: Type.Optional(Type.String({ maxLength: 100, description: 'Comma-separated scope names' })),
});

export const DocumentParams = Type.Object({
  userId: UserId,
  fieldId: Type.String({ minLength: 1, maxLength: 64 }),
});
export const DocumentQuery = Type.Object({
  docType: Type.String({ maxLength: 32, description: 'GOVT_ID, DRIVING_LICENSE, PASSPORT_CARD or PASSPORT' }),
});

const FieldView = Type.Object({
  value: Type.Unknown(),
  status: Type.String({ enum: ['OPEN', 'SUBMITTED'] }),
  error: Type.Union([Type.String(), Type.Null()]),
});

const ScopeView = Type.Object({
  status: Type.String({ enum: ['OPEN', 'PENDING', 'APPROVED', 'CLOSED'] }),
  openFields: Type.Array(Type.String()),
  onboardingRequired: Type.Boolean(),
  onboardingStatus: Type.String({ enum: ['OPEN', 'SUBMITTED', 'COMPLETE'] }),
  paymentMethodRequired: Type.Boolean(),
});

export const User = Type.Object({
  id: Type.String(),
  status: Type.String({ enum: ['OPEN', 'PENDING', 'APPROVED', 'CLOSED'] }),
  partnerId: Type.String(),
  type: Type.String(),
  createdAt: Type.Integer({ description: 'epoch ms' }),
  depositAddresses: Type.Record(Type.String(), Type.String()),
  totalBalances: Type.Record(Type.String(), Type.Number()),
  availableBalances: Type.Record(Type.String(), Type.Number()),
  fields: Type.Record(Type.String(), FieldView),
  scopes: Type.Record(Type.String(), ScopeView),
  authenticatedAs: Type.Optional(
    Type.String({
      description: 'Only on the POST /v3/users that tied a decentralized token to this user: `user:US_…`',
    }),
  ),
});

export const OnboardingAnswer = Type.Object({
  userId: Type.String(),
  verificationLinkUrl: Type.String({ description: 'Signed link to the hosted page; expires after an hour' }),
  status: Type.String({ enum: ['OPEN', 'SUBMITTED', 'COMPLETE'] }),
  expiresAt: Type.Integer({ description: 'epoch ms' }),
});

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/**
 * The shapes clients send (docs/contract.md "Payment methods and bank transfers"): a Plaid token
 * (`publicToken` "<token>|<accountId>", `plaidPublicToken`, `plaidProcessorToken`), a US account
 * (`accountNumber` and `routingNumber`), or a wire beneficiary (INTERNATIONAL_TRANSFER). Which
 * fields each needs is checked by the service, naming the missing one.
 */
export const CreatePaymentMethodBody = Type.Object(
  {
    paymentMethodType: Type.String({
      maxLength: 32,
      description: 'LOCAL_TRANSFER or INTERNATIONAL_TRANSFER',
    }),
    paymentType: text(32),
    country: Type.String({ maxLength: 2 }),
    currency: text(3),
    publicToken: text(512),
    plaidPublicToken: text(512),
    plaidProcessorToken: text(512),
    accountNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    routingNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    clabe: text(18),
    accountType: Type.Optional(Type.Union([Type.Literal('CHECKING'), Type.Literal('SAVINGS')])),
    beneficiaryType: Type.Optional(Type.Union([Type.Literal('INDIVIDUAL'), Type.Literal('CORPORATE')])),
    firstNameOnAccount: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    lastNameOnAccount: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    beneficiaryAddress: text(200),
    beneficiaryAddress2: text(200),
    beneficiaryCity: text(100),
    beneficiaryState: text(100),
    beneficiaryPostal: text(20),
    beneficiaryPhoneNumber: text(32),
    beneficiaryLandlineNumber: text(32),
    beneficiaryEmailAddress: text(254),
    beneficiaryEinTin: text(32),
    beneficiaryCompanyName: text(200),
    beneficiaryDobDay: text(2),
    beneficiaryDobMonth: text(2),
    beneficiaryDobYear: text(4),
    owner: text(64),
    attachBlockchains: text(200),
    chargeablePM: Type.Optional(Type.Union([Type.Boolean(), Type.String({ maxLength: 5 })])),
  },
  { additionalProperties: false },
);
export type CreatePaymentMethodBody = Static<typeof CreatePaymentMethodBody>;

export const PaymentMethodParams = Type.Object({
  paymentMethodId: Type.String({ minLength: 1, maxLength: 64 }),
});
export const ListQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

export const PaymentMethod = Type.Object(
  {
    id: Type.String(),
    owner: Type.String(),
    createdAt: Type.Integer(),
    name: Type.String(),
    status: Type.String({ enum: ['PENDING', 'ACTIVE', 'REJECTED', 'DISABLED'] }),
    linkType: Type.String(),
    last4Digits: Type.String(),
    srn: Type.String(),
    blockchains: Type.Record(Type.String(), Type.String(), {
      description: 'Deposit addresses attached (POST /v2/paymentMethod/{id}/attach), keyed by currency',
    }),
  },
  { additionalProperties: true },
);

export const AttachBlockchainsBody = Type.Object(
  {
    blockchain: Type.String({ minLength: 1, maxLength: 200, description: '"BTC", "ALL" or "BTC,ETH,…"' }),
    notifyUrl: Type.Optional(Type.String({ maxLength: 2048 })),
    muteMessages: Type.Optional(Type.Union([Type.Boolean(), Type.String({ maxLength: 5 })])),
  },
  { additionalProperties: false },
);
export type AttachBlockchainsBody = Static<typeof AttachBlockchainsBody>;

export const PaymentMethodList = Type.Object({
  data: Type.Array(PaymentMethod),
  position: Type.Integer(),
  recordsTotal: Type.Integer(),
  recordsFiltered: Type.Integer(),
});

const ScopeStatusText = Type.String({ enum: ['OPEN', 'PENDING', 'APPROVED', 'CLOSED'] });

export const ReviewList = Type.Object({
  data: Type.Array(
    Type.Object({
      userId: Type.String(),
      scope: ScopeNameText,
      status: ScopeStatusText,
      submittedAt: Type.Union([Type.Integer({ description: 'epoch ms' }), Type.Null()]),
      fields: Type.Record(Type.String(), FieldView),
    }),
  ),
});

export const ReviewAnswer = Type.Object({
  userId: Type.String(),
  scopes: Type.Record(Type.String(), ScopeStatusText, {
    description: 'Every scope of the user after the decision',
  }),
});

export const ReviewsQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['OPEN', 'PENDING', 'APPROVED', 'CLOSED'] })),
});
export const ReviewParams = Type.Object({ userId: UserId, scope: ScopeNameText });
export const ReviewBody = Type.Object(
  {
    decision: Type.Union([Type.Literal('APPROVE'), Type.Literal('RETURN'), Type.Literal('CLOSE')]),
    fieldErrors: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.String({ minLength: 1, maxLength: 500 }), {
        maxProperties: 20,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ReviewBody = Static<typeof ReviewBody>;
