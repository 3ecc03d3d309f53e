import { type Static, Type } from 'typebox';
import { WyreBoolean } from '../platform/http/wyre-types.ts';

const Amount = Type.Union([Type.Number(), Type.String({ maxLength: 64 })], {
  description: 'Exact decimal, as a JSON number or a decimal string',
});
const Currency = Type.String({ pattern: '^[A-Z]{3,5}$', description: 'Currency code, e.g. USD, ETH' });
const Srn = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

/** POST /v3/transfers (docs/contract.md, Transfers). Rules across fields are in transfer-request.ts. */
export const CreateTransferBody = Type.Object(
  {
    source: Type.Optional(
      Srn(
        'account:AC_…, user:US_… or paymentmethod:PA_…:ach (an ACH pull); defaults to the acting account or user',
      ),
    ),
    sourceCurrency: Currency,
    sourceAmount: Type.Optional(Amount),
    destAmount: Type.Optional(Amount),
    dest: Srn(
      'account:AC_…, AC_…, user:US_…, <chain>:<address> (a withdrawal) or paymentmethod:PA_… (a bank payout)',
    ),
    destCurrency: Type.Optional(Currency),
    message: Type.Optional(Type.String({ maxLength: 1000 })),
    notifyUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    autoConfirm: Type.Optional(WyreBoolean()),
    customId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    amountIncludesFees: Type.Optional(WyreBoolean()),
    preview: Type.Optional(WyreBoolean()),
    muteMessages: Type.Optional(WyreBoolean()),
  },
  { additionalProperties: false },
);
export type CreateTransferBody = Static<typeof CreateTransferBody>;

export const TransferParams = Type.Object(
  { transferId: Type.String({ pattern: '^TF_[2-9A-HJ-NP-Z]{11}$', description: 'TF_ + 11 characters' }) },
  { additionalProperties: false },
);

/**
 * Empty; whatever a client puts in it is ignored, except a `transferId` (some clients repeat the
 * path's), which must then name the transfer of the path (transfer-request.ts checkConfirmBody).
 */
export const ConfirmBody = Type.Object({}, { additionalProperties: true });
export type ConfirmBody = Record<string, unknown>;

export const TransferListQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, at most 100' })),
  length: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: 'Alias of limit (Wyre clients)' }),
  ),
});
export type TransferListQuery = Static<typeof TransferListQuery>;

const DecimalOut = Type.Number();
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

const StatusHistory = Type.Object({
  id: Type.String(),
  transferId: Type.String(),
  createdAt: Type.Number(),
  type: Type.String(),
  statusOrder: Type.Integer(),
  statusDetail: Type.String(),
  state: Type.String(),
  failedState: NullableString,
});

const BlockchainTx = Type.Object({
  id: Type.String({ description: 'TR_…' }),
  networkTxId: Type.String(),
  createdAt: Type.Number(),
  confirmations: Type.Integer(),
  timeObserved: Type.Number(),
  blockTime: Type.Number(),
  blockhash: Type.String(),
  amount: DecimalOut,
  direction: Type.String(),
  networkFee: DecimalOut,
  address: Type.String(),
  sourceAddress: Type.String(),
  currency: Type.String(),
  twinTxId: NullableString,
});

export const Transfer = Type.Object({
  id: Type.String(),
  // Literals spelt out (not mapped from an array) so Static<> keeps them: examples are typed by it.
  status: Type.Union([
    Type.Literal('PREVIEW'),
    Type.Literal('UNCONFIRMED'),
    Type.Literal('PENDING'),
    Type.Literal('COMPLETED'),
    Type.Literal('FAILED'),
    Type.Literal('EXPIRED'),
    Type.Literal('REVERSED'),
  ]),
  owner: Type.String(),
  source: Type.String(),
  dest: Type.String(),
  sourceCurrency: Type.String(),
  sourceAmount: DecimalOut,
  destCurrency: Type.String(),
  destAmount: DecimalOut,
  exchangeRate: NullableNumber,
  message: NullableString,
  customId: NullableString,
  fees: Type.Record(Type.String(), DecimalOut),
  totalFees: DecimalOut,
  createdAt: Type.Number(),
  updatedAt: NullableNumber,
  completedAt: NullableNumber,
  cancelledAt: NullableNumber,
  expiresAt: Type.Number(),
  failureReason: NullableString,
  blockchainTx: Type.Union([BlockchainTx, Type.Null()]),
  statusHistories: Type.Array(StatusHistory),
  pendingSubStatus: Type.Null(),
  reversingSubStatus: Type.Null(),
  reversalReason: NullableString,
});

/** docs/contract.md, decision 65. */
export const TransferListItem = Type.Object({
  ...Transfer.properties,
  closedAt: NullableNumber,
  sourceName: Type.String(),
  destName: Type.String(),
  blockchainTxId: NullableString,
  destNickname: NullableString,
});

export const TransferList = Type.Object({
  data: Type.Array(TransferListItem),
  position: Type.Integer(),
  recordsTotal: Type.Integer(),
  recordsFiltered: Type.Integer(),
});

export const DepositBody = Type.Object(
  {
    dest: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'A deposit address, bare or as <chain>:<address>',
    }),
    currency: Currency,
    amount: Amount,
  },
  { additionalProperties: false },
);
export type DepositBody = Static<typeof DepositBody>;

const Balances = Type.Record(Type.String(), Type.Number());
export const DepositAnswer = Type.Object({
  entryId: Type.Integer(),
  owner: Type.String(),
  chain: Type.String(),
  address: Type.String(),
  currency: Type.String(),
  amount: DecimalOut,
  totalBalances: Balances,
  availableBalances: Balances,
});
