import { type Static, Type } from 'typebox';

const Text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });
const Currency = Type.String({ pattern: '^[A-Z]{3,5}$', description: 'Currency code, e.g. USD, ETH' });

/** Apple's PKContact: only the members Rampart reads are named; Apple's others pass unread. */
const Contact = Type.Object(
  {
    givenName: Type.Optional(Text(100)),
    familyName: Type.Optional(Text(100)),
    addressLines: Type.Optional(Type.Array(Text(200), { maxItems: 5 })),
    locality: Type.Optional(Text(100)),
    administrativeArea: Type.Optional(Text(64)),
    postalCode: Type.Optional(Text(10)),
    countryCode: Type.Optional(Text(2, 'ISO 3166-1 alpha-2')),
    emailAddress: Type.Optional(Text(254)),
    phoneNumber: Type.Optional(Text(32)),
  },
  { additionalProperties: true },
);

/**
 * POST /v3/apple-pay/process/partner (docs/contract.md decision 45): Wyre's body as its clients
 * send it. Apple's own objects (the contacts and the payment token) keep every member Apple puts
 * in them; Wyre's parts are closed.
 */
export const ApplePayBody = Type.Object(
  {
    partnerId: Text(64, 'Your account id, AC_…'),
    payload: Type.Object(
      {
        orderRequest: Type.Object(
          {
            amount: Type.Union([Type.Number(), Type.String({ maxLength: 64 })], {
              description: 'Total charged, fees included',
            }),
            sourceCurrency: Currency,
            destCurrency: Currency,
            dest: Text(200, '<chain>:<address> or account:AC_…'),
            referrerAccountId: Text(64),
            referenceId: Type.Optional(Type.Union([Text(255), Type.Null()])),
            reservationId: Type.Optional(Text(64, 'A reservation to use; without one, Rampart makes one')),
          },
          { additionalProperties: false },
        ),
        paymentObject: Type.Object(
          {
            billingContact: Contact,
            shippingContact: Type.Optional(Contact),
            token: Type.Object(
              {
                paymentData: Type.Unknown({ description: 'Apple’s encrypted payment data' }),
                paymentMethod: Type.Object(
                  {
                    displayName: Type.Optional(Text(64, 'e.g. "Visa 1111"')),
                    network: Type.Optional(Text(32)),
                    type: Type.Optional(Text(16, 'debit, credit, prepaid')),
                  },
                  { additionalProperties: true },
                ),
                transactionIdentifier: Type.Optional(Text(128)),
              },
              { additionalProperties: true },
            ),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type ApplePayBody = Static<typeof ApplePayBody>;

export const ApplePayAnswer = Type.Object({ id: Type.String({ description: 'The wallet order, WO_…' }) });
