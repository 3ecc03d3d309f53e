import { type Static, Type } from 'typebox';
import { CreateTransferBody } from './schemas.ts';

/**
 * The v2 names of the transfer calls (docs/contract.md, "Wallets and v2 transfers"): the body of
 * POST /v3/transfers, with `callbackUrl`, v2's name of `notifyUrl`, accepted too.
 */
export const V2CreateTransferBody = Type.Object(
  {
    ...CreateTransferBody.properties,
    callbackUrl: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: 'v2 name of notifyUrl' }),
    ),
  },
  { additionalProperties: false },
);
export type V2CreateTransferBody = Static<typeof V2CreateTransferBody>;

export const CustomIdQuery = Type.Object({ customId: Type.String({ minLength: 1, maxLength: 255 }) });

const Amounts = Type.Record(Type.String(), Type.Number());
const TimelineEntry = Type.Object(
  { statusDetails: Type.String(), state: Type.String(), createdAt: Type.Number() },
  { additionalProperties: false },
);
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** GET /v2/transfer/{id}/track: the tracker's impersonal view (track-view.ts). */
export const Tracking = Type.Object(
  {
    transferId: Type.String(),
    feeCurrency: Type.String(),
    fee: Type.Number(),
    fees: Amounts,
    sourceCurrency: Type.String(),
    destCurrency: Type.String(),
    sourceAmount: Type.Number(),
    destAmount: Type.Number(),
    destSrn: Type.String(),
    from: Type.String(),
    to: Type.String(),
    rate: Type.Union([Type.Number(), Type.Null()]),
    customId: NullableString,
    status: Type.String(),
    blockchainNetworkTx: NullableString,
    message: NullableString,
    transferHistoryEntryType: Type.Literal('OUTGOING'),
    successTimeline: Type.Array(TimelineEntry),
    failedTimeline: Type.Array(TimelineEntry),
    failureReason: NullableString,
    reversalReason: Type.Null(),
  },
  { additionalProperties: false },
);
