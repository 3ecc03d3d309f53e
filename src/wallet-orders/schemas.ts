import { isIP } from 'node:net';
import { type Static, Type } from 'typebox';
import { checkCard } from '../cards/index.ts';
import { AddressBody, checkBillingAddress } from '../limits/index.ts';
import { fieldRequired, invalidValue } from '../platform/errors.ts';
import { EXAMPLE_IDS, exampleTime } from '../platform/http/examples.ts';
import { WyreBoolean, WyrePhone } from '../platform/http/wyre-types.ts';
import { isId } from '../platform/ids.ts';
import { parsePositiveAmount } from '../platform/money.ts';
import { walletOrderErrors } from './errors.ts';
import type { WalletOrderRequest } from './request.ts';

const Text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });
const Currency = Type.String({ pattern: '^[A-Z]{3,5}$', description: 'Currency code, e.g. USD, ETH' });

/** POST /v3/debitcard/process/partner (docs/contract.md, Card orders). Format rules beyond types are in parseProcessBody. */
export const ProcessBody = Type.Object(
  {
    debitCard: Type.Object(
      {
        number: Text(32, 'Card number, digits only'),
        year: Text(8, 'Four-digit expiry year, e.g. "2030"'),
        month: Text(4, 'Two-digit expiry month, e.g. "01"'),
        cvv: Text(8, 'Three-digit security code'),
      },
      { additionalProperties: false },
    ),
    reservationId: Type.String({ minLength: 1, maxLength: 64 }),
    amount: Type.Union([Type.Number(), Type.String({ maxLength: 64 })], {
      description: 'Total charged, fees included; equals the locked quote’s sourceAmount',
    }),
    sourceCurrency: Currency,
    destCurrency: Currency,
    dest: Text(200, '<chain>:<address> or account:AC_…'),
    referrerAccountId: Text(64),
    givenName: Text(100),
    familyName: Text(100),
    email: Text(254),
    phone: WyrePhone(32, 'E.164, with the leading +; a JSON integer is read as its digits after a +'),
    referenceId: Type.Optional(Type.Union([Text(255), Type.Null()])),
    address: AddressBody,
    ipAddress: Text(45, 'The buyer’s IPv4 or IPv6 address'),
    trigger3ds: Type.Optional(WyreBoolean()),
    walletType: Type.Optional(Type.Union([Type.Literal('DEBIT_CARD'), Type.Literal('APPLE_PAY')])),
    owner: Type.Optional(Text(64, 'user:US_… for the buyer’s own limits and DEBIT_CARD_L2')),
  },
  { additionalProperties: false },
);
export type ProcessBody = Static<typeof ProcessBody>;

const PHONE = /^\+[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CONTROL = /\p{Cc}/u;

function name(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw fieldRequired(field);
  if (CONTROL.test(trimmed)) throw invalidValue(field, `Field ${field} must be plain text.`);
  return trimmed;
}

/**
 * A schema-valid body → WalletOrderRequest, with every format rule that needs no database:
 * card (Luhn, 4-digit year, expiry by `nowMs`, CVV), address, amount, contact fields, IP.
 * The hosted checkout page calls this too, so both paths refuse exactly the same input.
 */
export function parseProcessBody(body: ProcessBody, nowMs: number): WalletOrderRequest {
  checkCard(body.debitCard, nowMs);
  const address = checkBillingAddress(body.address);
  const amount = parsePositiveAmount(body.amount, 'amount', body.sourceCurrency);
  if (!EMAIL.test(body.email)) throw invalidValue('email', 'Field email must be an e-mail address.');
  if (!PHONE.test(body.phone)) {
    throw invalidValue(
      'phone',
      'Field phone must be in E.164 form, with the country code: +14155550100.',
      'validation.phoneNumRequiresCountryCode',
    );
  }
  if (isIP(body.ipAddress) === 0)
    throw invalidValue('ipAddress', 'Field ipAddress must be an IPv4 or IPv6 address.');
  if (body.owner !== undefined && !(body.owner.startsWith('user:') && isId(body.owner.slice(5), 'US'))) {
    throw walletOrderErrors.ownerFormat();
  }
  return {
    reservationId: body.reservationId,
    amount,
    sourceCurrency: body.sourceCurrency,
    destCurrency: body.destCurrency,
    dest: body.dest,
    referrerAccountId: body.referrerAccountId,
    givenName: name(body.givenName, 'givenName'),
    familyName: name(body.familyName, 'familyName'),
    email: body.email,
    phone: body.phone,
    ...(body.referenceId ? { referenceId: body.referenceId } : {}),
    address,
    ipAddress: body.ipAddress,
    debitCard: { ...body.debitCard },
    ...(body.trigger3ds !== undefined ? { trigger3ds: body.trigger3ds } : {}),
    ...(body.walletType ? { walletType: body.walletType } : {}),
    ...(body.owner ? { owner: body.owner } : {}),
  };
}

export const OrderParams = Type.Object({ orderId: Type.String({ minLength: 1, maxLength: 64 }) });

export const AuthorizeBody = Type.Object(
  {
    type: Type.Union([Type.Literal('SMS'), Type.Literal('CARD2FA'), Type.Literal('ALL')]),
    walletOrderId: Type.String({ minLength: 1, maxLength: 64 }),
    reservation: Type.String({ minLength: 1, maxLength: 64 }),
    sms: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'Six digits' })),
    card2fa: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'Six digits' })),
  },
  { additionalProperties: false },
);
export type AuthorizeBody = Static<typeof AuthorizeBody>;

export const AuthorizeAnswer = Type.Object({ walletOrderId: Type.String(), success: Type.Boolean() });

export const AuthorizationAnswer = Type.Object({
  walletOrderId: Type.String(),
  smsNeeded: Type.Boolean(),
  card2faNeeded: Type.Boolean(),
  authorization3dsUrl: Type.Union([Type.String(), Type.Null()]),
});

export const WebhookBody = Type.Object(
  {
    owner: Type.String({ minLength: 1, maxLength: 64, description: 'account:AC_…' }),
    webhook: Type.String({ minLength: 1, maxLength: 2048, description: 'URL receiving wallet-order events' }),
  },
  { additionalProperties: false },
);
export type WebhookBody = Static<typeof WebhookBody>;

const Decimal = Type.Number();
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const WalletOrderSchema = Type.Object({
  id: Type.String(),
  createdAt: Type.Integer(),
  owner: Type.String(),
  status: Type.String({ description: 'RUNNING_CHECKS, PROCESSING, COMPLETE or FAILED' }),
  orderType: Type.String(),
  sourceAmount: Decimal,
  purchaseAmount: Decimal,
  sourceCurrency: Type.String(),
  destCurrency: Type.String(),
  destAmount: Decimal,
  exchangeRate: Decimal,
  fees: Type.Record(Type.String(), Decimal),
  transferId: Nullable(Type.String()),
  dest: Type.String(),
  email: Type.String(),
  authCodesRequested: Type.Boolean(),
  paymentMethodName: Type.String(),
  accountId: Type.String(),
  walletType: Type.String(),
  errorMessage: Nullable(Type.String()),
  errorCode: Nullable(Type.String()),
  failureReason: Nullable(Type.String()),
  referenceId: Nullable(Type.String()),
  reservationId: Type.String(),
  updatedAt: Type.Integer(),
  completedAt: Type.Union([Type.Integer(), Type.Null()]),
  smsSentAt: Type.Null(),
  smsDeliveredAt: Type.Null(),
  smsRepliedAt: Type.Null(),
  smsReplyBody: Type.Null(),
  smsTriggerAt: Type.Null(),
});

/** GET /v3/orders/{orderId}/full: the order with Wyre's failure details (docs/contract.md decision 40). */
export const FullWalletOrderSchema = Type.Object({
  ...WalletOrderSchema.properties,
  errorCategory: Type.Union([Type.String({ description: 'GENERAL when FAILED' }), Type.Null()]),
  paymentNetworkErrorCode: Type.Null(),
  internalErrorCode: Type.Null(),
});

/** GET /v3/orders/{orderId} without credentials: nothing about the buyer (docs/contract.md, Card orders). */
export const PublicWalletOrderSchema = Type.Object({
  id: Type.String(),
  status: Type.String(),
  createdAt: Type.Integer(),
  sourceCurrency: Type.String(),
  sourceAmount: Decimal,
  purchaseAmount: Decimal,
  destCurrency: Type.String(),
  destAmount: Decimal,
  dest: Type.String(),
  transferId: Nullable(Type.String()),
  errorMessage: Nullable(Type.String()),
});

/** With credentials the whole order, without them the public view. */
export const OrderReadAnswer = Type.Union([WalletOrderSchema, PublicWalletOrderSchema]);

export const OrderListQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
export type OrderListQuery = Static<typeof OrderListQuery>;

export const OrderListAnswer = Type.Object({
  data: Type.Array(FullWalletOrderSchema),
  position: Type.Integer(),
  recordsTotal: Type.Integer(),
  recordsFiltered: Type.Integer(),
});

/** The query value that makes the issuer page send the buyer on to the reservation's URLs. */
export const RESERVATION_REDIRECT = 'reservation';

/** The 3-D Secure pages' path: the order and its capability token (HMAC of the order id). */
export const ThreeDsPageParams = {
  type: 'object',
  properties: {
    orderId: { type: 'string', minLength: 1, maxLength: 64 },
    token: { type: 'string', minLength: 1, maxLength: 64 },
  },
  required: ['orderId', 'token'],
} as const;

/** Where the 3-D Secure pages send the buyer on: a return path, or the reservation's URLs. */
export const ThreeDsPageQuery = {
  type: 'object',
  properties: {
    returnUrl: { type: 'string', maxLength: 2048 },
    redirect: { type: 'string', enum: [RESERVATION_REDIRECT] },
  },
} as const;

/** GET /operator/v1/card-payments/attention: what a remote processor left for the operator. */
export const CardPaymentsAttention = Type.Object({
  payments: Type.Array(
    Type.Object({
      orderId: Type.String(),
      processor: Type.String(),
      reference: Type.Union([Type.String(), Type.Null()]),
      state: Type.String(),
      amount: Type.Number(),
      currency: Type.String(),
      attention: Type.Union([Type.String(), Type.Null()]),
    }),
    { description: 'Authorizations the status poll gave up on: decide them from the processor’s dashboard.' },
  ),
  operations: Type.Array(
    Type.Object({
      orderId: Type.String(),
      kind: Type.String({ description: 'capture, void or refund' }),
      n: Type.Integer(),
      amount: Type.Union([Type.Number(), Type.Null()]),
      detail: Type.Union([Type.String(), Type.Null()]),
      at: Type.Integer({ description: 'Epoch milliseconds' }),
    }),
    { description: 'Captures, voids and refunds the processor refused, with its words.' },
  ),
});

export const cardPaymentsAttentionExample = {
  payments: [],
  operations: [
    {
      orderId: EXAMPLE_IDS.walletOrder,
      kind: 'capture',
      n: 1,
      amount: 25.5,
      detail: 'charge_expired_for_capture: the authorization lapsed',
      at: exampleTime(600),
    },
  ],
};
