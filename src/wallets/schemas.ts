import { type Static, Type } from 'typebox';

const WalletTypeSchema = Type.Union(
  [Type.Literal('DEFAULT'), Type.Literal('ENTERPRISE'), Type.Literal('SAVINGS')],
  {
    description: 'DEFAULT when left out',
  },
);
const CallbackUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Kept with the wallet; must be a callback target the service allows',
});
const Notes = Type.String({ minLength: 1, maxLength: 1000 });
const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Your own identifier; unique per owner',
});

/** POST /v2/wallets (one wallet); the rules are in input.ts, shared with the batch. */
export const CreateWalletBody = Type.Object(
  {
    name: Name,
    callbackUrl: Type.Optional(Type.Union([CallbackUrl, Type.Null()])),
    notes: Type.Optional(Type.Union([Notes, Type.Null()])),
    type: Type.Optional(WalletTypeSchema),
  },
  { additionalProperties: false },
);
export type CreateWalletBody = Static<typeof CreateWalletBody>;

/**
 * POST /v2/wallets/batch. The items are checked one by one by the service (input.ts), so one bad
 * wallet does not hide what is wrong with the others.
 */
export const CreateWalletsBody = Type.Object(
  {
    wallets: Type.Array(Type.Unknown({ description: 'A wallet as POST /v2/wallets takes it' }), {
      minItems: 1,
      maxItems: 100,
    }),
  },
  { additionalProperties: false },
);
export type CreateWalletsBody = Static<typeof CreateWalletsBody>;

export const UpdateWalletBody = Type.Object(
  {
    name: Type.Optional(Name),
    callbackUrl: Type.Optional(Type.Union([CallbackUrl, Type.Null()])),
    notes: Type.Optional(Type.Union([Notes, Type.Null()])),
    verificationData: Type.Optional(Type.Unknown({ description: 'Any JSON value, kept as sent' })),
  },
  { additionalProperties: false },
);
export type UpdateWalletBody = Static<typeof UpdateWalletBody>;

export const WalletParams = Type.Object(
  { walletId: Type.String({ pattern: '^WA_[2-9A-HJ-NP-Z]{11}$', description: 'WA_ + 11 characters' }) },
  { additionalProperties: false },
);

export const WalletNameQuery = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });

export const WalletListQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, at most 100; default 25' }),
  ),
});
export type WalletListQuery = Static<typeof WalletListQuery>;

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Amounts = Type.Record(Type.String(), Type.Number());

export const Wallet = Type.Object(
  {
    id: Type.String(),
    srn: Type.String({ description: 'wallet:WA_…, usable as a transfer source or dest' }),
    name: Type.String(),
    owner: Type.String({ description: 'account:AC_… or user:US_…' }),
    status: Type.Null(),
    type: WalletTypeSchema,
    callbackUrl: NullableString,
    notes: NullableString,
    pusherChannel: Type.String(),
    depositAddresses: Type.Record(Type.String(), Type.String()),
    balances: Type.Record(Type.String(), Type.Number(), {
      description: 'What it can spend now (availableBalances)',
    }),
    totalBalances: Amounts,
    availableBalances: Amounts,
    verificationData: Type.Unknown(),
    createdAt: Type.Number(),
  },
  { additionalProperties: false },
);

export const WalletList = Type.Object({ data: Type.Array(Wallet) }, { additionalProperties: false });
export const WalletBatch = Type.Array(Wallet);
export const Deleted = Type.Object({}, { additionalProperties: false });
