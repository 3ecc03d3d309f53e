import { type Static, Type } from 'typebox';

const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const AccountId = Type.String({ minLength: 1, maxLength: 64, description: 'The checkout link’s accountId' });
const Reservation = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The reservation id: the buyer’s capability for this checkout',
});
const OrderToken = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'Handed out with the order: binds it to the reservation',
});
const Currency = Type.String({ pattern: '^[A-Z]{3,5}$' });
const Amount = Type.Union([Type.Number(), Type.String({ maxLength: 64 })]);

/** GET /purchase (docs/contract.md, Hosted pages); `order`/`orderToken` when coming back from 3-D Secure. */
export const PageQuery = Type.Object(
  {
    accountId: AccountId,
    reservation: Reservation,
    redirectUrl: Type.Optional(Text(2048)),
    failureRedirectUrl: Type.Optional(Text(2048)),
    utm_campaign: Type.Optional(Type.String({ maxLength: 200 })),
    utm_medium: Type.Optional(Type.String({ maxLength: 200 })),
    utm_source: Type.Optional(Type.String({ maxLength: 200 })),
    order: Type.Optional(Text(64)),
    orderToken: Type.Optional(OrderToken),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuery>;

export const AssetParams = Type.Object({ name: Type.String({ maxLength: 64 }) });

export const QuoteBody = Type.Object(
  {
    accountId: AccountId,
    reservation: Reservation,
    amount: Type.Optional(Amount),
    sourceCurrency: Currency,
    destCurrency: Currency,
  },
  { additionalProperties: false },
);
export type QuoteBody = Static<typeof QuoteBody>;

/** Amounts as exact decimal text: the page shows them digit for digit (a JS number could not). */
export const QuoteAnswer = Type.Object({
  sourceCurrency: Type.String(),
  sourceAmount: Type.String(),
  sourceAmountWithoutFees: Type.String(),
  destCurrency: Type.String(),
  destAmount: Type.String(),
  exchangeRate: Type.String(),
  fees: Type.Record(Type.String(), Type.String()),
  display: Type.Object({
    destAmount: Type.String(),
    rate: Type.String(),
    lines: Type.Array(Type.Object({ key: Type.String(), text: Type.String() })),
    networkFeeNative: Type.Union([Type.String(), Type.Null()]),
    total: Type.String({ description: 'The charge; the lines add up to it exactly' }),
  }),
});

export const OrderParams = Type.Object({ orderId: Text(64) });

export const OrderQuery = Type.Object(
  { accountId: AccountId, reservation: Reservation, orderToken: OrderToken },
  { additionalProperties: false },
);
export type OrderQuery = Static<typeof OrderQuery>;

export const PlacedOrder = Type.Object({
  orderId: Type.String(),
  status: Type.String(),
  orderToken: Type.String(),
});

export const Progress = Type.Object({
  orderId: Type.String(),
  status: Type.String({ description: 'RUNNING_CHECKS, PROCESSING, COMPLETE or FAILED' }),
  errorMessage: Type.Union([Type.String(), Type.Null()]),
  destAmount: Type.Union([Type.String(), Type.Null()]),
  destCurrency: Type.Union([Type.String(), Type.Null()]),
  next: Type.Union([
    Type.Null(),
    Type.Object({
      smsNeeded: Type.Boolean(),
      card2faNeeded: Type.Boolean(),
      threeDsPath: Type.Union([Type.String(), Type.Null()]),
    }),
  ]),
  redirectTo: Type.Union([Type.String(), Type.Null()]),
  returnUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'The partner page the ended order’s “Back to” button goes to',
  }),
  receipt: Type.Union([
    Type.Null(),
    Type.Object({
      orderId: Type.String(),
      paid: Type.String(),
      fees: Type.String(),
      received: Type.String(),
      dest: Type.String(),
      transactionHash: Type.Union([Type.String(), Type.Null()]),
      explorerUrl: Type.Union([Type.String(), Type.Null()]),
    }),
  ]),
});

const Code = Type.String({ pattern: '^\\d{6}$', description: '6 digits' });

export const CodesBody = Type.Object(
  {
    accountId: AccountId,
    reservation: Reservation,
    orderToken: OrderToken,
    type: Type.Union([Type.Literal('SMS'), Type.Literal('CARD2FA'), Type.Literal('ALL')]),
    sms: Type.Optional(Code),
    card2fa: Type.Optional(Code),
  },
  { additionalProperties: false },
);
export type CodesBody = Static<typeof CodesBody>;

export const CodesAnswer = Type.Object({ walletOrderId: Type.String(), success: Type.Boolean() });

/** GET /v3/orders/reservation/{reservationId}/cardAttempts: the declines the buyer was not told. */
export const DeclinedCardAttempts = Type.Object({
  data: Type.Array(
    Type.Object({
      createdAt: Type.Integer({ description: 'When the card was tried, epoch ms' }),
      errorCode: Type.String({
        description: 'What the partner API would have answered, e.g. validation.avs.zipcode',
      }),
      message: Type.String({ description: 'The processor’s reason, its decline code included' }),
    }),
  ),
});
