import { type Static, Type } from 'typebox';
import { WyreBoolean } from '../platform/http/wyre-types.ts';

const AccountId = Type.String({
  pattern: '^AC_[2-9A-HJ-NP-Z]{11}$',
  description: 'Account id, e.g. AC_YQG97JUANCF',
});
const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code' });

export const ProfileFieldInput = Type.Object(
  {
    fieldId: Type.String({ minLength: 1, maxLength: 64 }),
    value: Type.Union([
      Type.String({ maxLength: 200 }),
      Type.Object({}, { additionalProperties: Type.String({ maxLength: 200 }) }),
    ]),
  },
  { additionalProperties: false },
);

export const CreateAccountBody = Type.Object(
  {
    type: Type.Optional(Type.Union([Type.Literal('INDIVIDUAL'), Type.Literal('BUSINESS')])),
    country: Country,
    profileFields: Type.Optional(Type.Array(ProfileFieldInput, { maxItems: 20 })),
    referrerAccountId: Type.Optional(AccountId),
    subaccount: Type.Optional(WyreBoolean()),
    disableEmail: Type.Optional(WyreBoolean()),
  },
  { additionalProperties: false },
);
export type CreateAccountBody = Static<typeof CreateAccountBody>;

export const UpdateAccountBody = Type.Object(
  { profileFields: Type.Array(ProfileFieldInput, { minItems: 1, maxItems: 20 }) },
  { additionalProperties: false },
);
export type UpdateAccountBody = Static<typeof UpdateAccountBody>;

export const AccountParams = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 64 }) });

const ProfileFieldView = Type.Object({
  fieldId: Type.String(),
  fieldType: Type.String(),
  value: Type.Unknown(),
  note: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ enum: ['OPEN', 'PENDING', 'APPROVED'] }),
});

export const Account = Type.Object({
  id: AccountId,
  status: Type.String({ enum: ['OPEN', 'PENDING', 'APPROVED', 'CLOSED'] }),
  type: Type.String(),
  country: Type.String(),
  createdAt: Type.Integer({ description: 'epoch ms' }),
  depositAddresses: Type.Record(Type.String(), Type.String()),
  totalBalances: Type.Record(Type.String(), Type.Number()),
  availableBalances: Type.Record(Type.String(), Type.Number()),
  profileFields: Type.Array(ProfileFieldView),
  subaccount: Type.Boolean(),
});

const Whitelist = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 50,
  description: 'IPv4/IPv6 addresses or CIDR ranges; empty = any address',
});

export const CreateKeyBody = Type.Object(
  {
    desc: Type.Optional(Type.String({ maxLength: 200 })),
    type: Type.Optional(Type.Union([Type.Literal('FULL'), Type.Literal('READONLY')])),
    ipWhitelist: Type.Optional(Whitelist),
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const CreatedKey = Type.Object({
  apiKey: Type.String(),
  secretKey: Type.String({ description: 'Shown once' }),
  owner: Type.String(),
  type: Type.String(),
  desc: Type.String(),
  ipWhitelist: Type.Array(Type.String()),
});

export const KeyParams = Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 64 }) });

export const AccountKeyParams = Type.Object({
  accountId: Type.String({ minLength: 1, maxLength: 64 }),
  apiKey: Type.String({ minLength: 1, maxLength: 64 }),
});

/** A live key as the operator lists it: never its secret, which exists only sealed and hashed. */
export const KeyListing = Type.Object({
  data: Type.Array(
    Type.Object({
      apiKey: Type.String(),
      type: Type.String({ enum: ['FULL', 'READONLY'] }),
      desc: Type.String(),
      ipWhitelist: Type.Array(Type.String()),
      origin: Type.String({ enum: ['operator', 'api', 'session'], description: 'Who made it' }),
      createdAt: Type.Integer({ description: 'epoch ms' }),
    }),
  ),
});

const SessionSecret = Type.String({ minLength: 25, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' });
export const SessionQuery = Type.Object({ secretKey: Type.Optional(SessionSecret) });
export const SessionBody = Type.Object(
  { secretKey: Type.Optional(SessionSecret) },
  { additionalProperties: false },
);

export const SessionAnswer = Type.Object({
  apiKey: Type.String(),
  authenticatedAs: Type.Union([Type.String(), Type.Null()]),
});

export const MasterAccountBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    country: Country,
    usersApi: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type MasterAccountBody = Static<typeof MasterAccountBody>;

export const CreatedMaster = Type.Object({
  accountId: Type.String(),
  apiKey: Type.String(),
  secretKey: Type.String({ description: 'Shown once' }),
  webhookSecret: Type.String({ description: 'Signs callbacks; shown once' }),
});

export const UsersApiBody = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
export const UsersApiAnswer = Type.Object({ accountId: Type.String(), usersApi: Type.Boolean() });
