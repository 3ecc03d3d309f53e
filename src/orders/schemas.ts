import { type Static, Type } from 'typebox';
import { WyreBoolean, WyrePhone } from '../platform/http/wyre-types.ts';

const Amount = Type.Union([Type.Number(), Type.String({ maxLength: 64 })], {
  description: 'Exact decimal, as a JSON number or a decimal string',
});
const Currency = Type.String({ pattern: '^[A-Z]{3,5}$', description: 'Currency code, e.g. USD, ETH' });
const Text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });
const RedirectUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'http(s) URL, at most 2048 characters',
});

/** The reservation request of docs/contract.md, Reservations and quotes (plus Wyre's autoRedirect). Rules across fields are in reservation-request.ts. */
export const ReserveBody = Type.Object(
  {
    sourceAmount: Type.Optional(Amount),
    destAmount: Type.Optional(Amount),
    amount: Type.Optional(Amount),
    amountIncludeFees: Type.Optional(WyreBoolean()),
    paymentMethod: Type.Optional(Text(32, 'debit-card or apple-pay')),
    sourceCurrency: Type.Optional(Currency),
    destCurrency: Type.Optional(Currency),
    dest: Type.Optional(Text(200, '<chain>:<address> or account:AC_…')),
    referrerAccountId: Type.Optional(Text(64, 'Your account id or a sub-account’s')),
    country: Type.Optional(Text(2, 'ISO 3166-1 alpha-2, upper case')),
    redirectUrl: Type.Optional(RedirectUrl),
    failureRedirectUrl: Type.Optional(RedirectUrl),
    autoRedirect: Type.Optional(WyreBoolean()),
    lockFields: Type.Optional(Type.Array(Text(32), { maxItems: 20 })),
    street1: Type.Optional(Text(200)),
    city: Type.Optional(Text(100)),
    state: Type.Optional(Text(100)),
    postalCode: Type.Optional(Text(20)),
    firstName: Type.Optional(Text(100)),
    lastName: Type.Optional(Text(100)),
    phone: Type.Optional(WyrePhone(32, 'E.164, with the leading +')),
    email: Type.Optional(Text(254)),
    referenceId: Type.Optional(Type.Union([Text(255), Type.Null()])),
    hideTrackBtn: Type.Optional(Type.Union([WyreBoolean(), Type.Null()])),
  },
  { additionalProperties: false },
);
export type ReserveBody = Static<typeof ReserveBody>;

export const ReserveAnswer = Type.Object({
  url: Type.String({ description: 'Hosted checkout page for this reservation' }),
  reservation: Type.String({ description: '20 characters; usable once, for 15 minutes' }),
});

const DecimalOut = Type.Number();

export const QuoteSchema = Type.Object({
  sourceCurrency: Type.String(),
  sourceAmount: DecimalOut,
  sourceAmountWithoutFees: DecimalOut,
  destCurrency: Type.String(),
  destAmount: DecimalOut,
  exchangeRate: DecimalOut,
  equivalencies: Type.Record(Type.String(), DecimalOut),
  fees: Type.Record(Type.String(), DecimalOut),
});

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ReservationView = Type.Object({
  reservation: Type.String(),
  amount: Type.Union([DecimalOut, Type.Null()]),
  sourceAmount: Type.Union([DecimalOut, Type.Null()]),
  destAmount: Type.Union([DecimalOut, Type.Null()]),
  amountIncludeFees: Type.Union([Type.Boolean(), Type.Null()]),
  sourceCurrency: Nullable(Type.String()),
  destCurrency: Nullable(Type.String()),
  dest: Nullable(Type.String()),
  referrerAccountId: Nullable(Type.String()),
  paymentMethod: Nullable(Type.String()),
  country: Nullable(Type.String()),
  street1: Nullable(Type.String()),
  city: Nullable(Type.String()),
  state: Nullable(Type.String()),
  postalCode: Nullable(Type.String()),
  firstName: Type.String({ description: '"" when not given' }),
  lastName: Type.String({ description: '"" when not given' }),
  phone: Type.String({ description: '"" when not given' }),
  email: Type.String({ description: '"" when not given' }),
  redirectUrl: Nullable(Type.String()),
  failureRedirectUrl: Nullable(Type.String()),
  autoRedirect: Type.Union([Type.Boolean(), Type.Null()]),
  referenceId: Nullable(Type.String()),
  hideTrackBtn: Type.Union([Type.Boolean(), Type.Null()]),
  lockFields: Type.Array(Type.String()),
  quoteLockRequest: Type.Boolean(),
  quote: Type.Union([QuoteSchema, Type.Null()]),
  createdAt: Type.Integer({ description: 'epoch ms' }),
  expiresAt: Type.Integer({ description: 'epoch ms, by the service clock' }),
});

export const ReservationParams = Type.Object({
  reservationId: Type.String({ minLength: 1, maxLength: 64 }),
});

/** POST /v3/orders/quote/partner (docs/contract.md, Reservations and quotes): an unlocked quote. */
export const PartnerQuoteBody = Type.Object(
  {
    amount: Type.Optional(Amount),
    sourceAmount: Type.Optional(Amount),
    destAmount: Type.Optional(Amount),
    amountIncludeFees: Type.Optional(WyreBoolean()),
    sourceCurrency: Currency,
    destCurrency: Currency,
    dest: Type.Optional(Text(200)),
    accountId: Type.Optional(Text(64)),
    country: Type.Optional(Text(2)),
    walletType: Type.Optional(
      Type.Union([Type.Literal('DEBIT_CARD'), Type.Literal('APPLE_PAY'), Type.Literal('WALLET_PAY')]),
    ),
    paymentMethod: Type.Optional(Text(32)),
  },
  { additionalProperties: false },
);
export type PartnerQuoteBody = Static<typeof PartnerQuoteBody>;
