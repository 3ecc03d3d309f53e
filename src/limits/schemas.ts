import { type Static, Type } from 'typebox';

const Text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

/** The billing address of docs/contract.md (Card limits); shared by card orders and the limits calculation. */
export const AddressBody = Type.Object(
  {
    street1: Text(200),
    street2: Type.Optional(Text(200)),
    city: Text(100),
    state: Text(64, 'State code (US: two letters); province or region elsewhere'),
    postalCode: Text(10, 'US: 5 digits or ZIP+4; elsewhere the country’s format'),
    country: Text(2, 'ISO 3166-1 alpha-2'),
  },
  { additionalProperties: false },
);

/** POST /v3/widget/limits/calculate (docs/contract.md, Card limits). */
export const CalculateBody = Type.Object(
  {
    accountId: Type.String({ minLength: 1, maxLength: 64, description: 'Partner account, AC_…' }),
    address: AddressBody,
    walletType: Type.Optional(
      Type.Union([Type.Literal('WALLET_PAY'), Type.Literal('APPLE_PAY'), Type.Literal('DEBIT_CARD')], {
        description: 'APPLE_PAY is Wyre’s spelling of WALLET_PAY (docs/contract.md, decision 6)',
      }),
    ),
    userId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'US_…: adds the user’s spend and tier' }),
    ),
    sourceCurrency: Type.Optional(
      Type.Union(
        [
          Type.Literal('USD'),
          Type.Literal('EUR'),
          Type.Literal('CAD'),
          Type.Literal('GBP'),
          Type.Literal('AUD'),
        ],
        { description: 'Limits are always answered in USD' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CalculateBody = Static<typeof CalculateBody>;

const Usd = Type.Number({ description: 'USD' });
export const LimitsAnswer = Type.Object({
  dailyTotalSpent: Usd,
  weeklyTotalSpent: Usd,
  yearlyTotalSpent: Usd,
  dailyTotal: Usd,
  weeklyTotal: Usd,
  yearlyTotal: Usd,
  dailyRemaining: Usd,
  weeklyRemaining: Usd,
  yearlyRemaining: Usd,
});

export const SupportedCountriesAnswer = Type.Array(
  Type.Object({
    name: Type.String(),
    code: Type.String(),
    phonePrefix: Type.String(),
    stateLabel: Type.String(),
  }),
);

const Amount = Type.Union([Type.Number(), Type.String({ maxLength: 32 })]);
const TableBody = Type.Object(
  { daily: Amount, weekly: Amount, yearly: Amount },
  { additionalProperties: false },
);

/** PUT /operator/v1/accounts/{accountId}/card-limits: a tier left out uses the default tables. */
export const OverrideBody = Type.Object(
  { STANDARD: Type.Optional(TableBody), DEBIT_CARD_L2: Type.Optional(TableBody) },
  { additionalProperties: false },
);
export type OverrideBody = Static<typeof OverrideBody>;

const TableAnswer = Type.Object({ daily: Usd, weekly: Usd, yearly: Usd });
export const OverrideAnswer = Type.Object({
  accountId: Type.String(),
  STANDARD: Type.Union([TableAnswer, Type.Null()]),
  DEBIT_CARD_L2: Type.Union([TableAnswer, Type.Null()]),
});

export const AccountParams = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 64 }) });

/** GET /v3/limits (docs/contract.md decision 43). */
export const LimitsQuery = Type.Object({
  srn: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'user:US_… (or the acting account:AC_…)' }),
  ),
});
export type LimitsQuery = Static<typeof LimitsQuery>;

const WindowLimit = Type.Object({
  in: Type.Number(),
  out: Type.Union([Type.Number(), Type.Null()]),
  availIn: Type.Number(),
  availOut: Type.Union([Type.Number(), Type.Null()]),
});
const Windows = Type.Record(
  Type.String({ description: 'Rolling window in hours: 24, 168, 8760' }),
  Type.Record(Type.String({ description: 'Currency' }), WindowLimit),
);

export const LimitsByContextAnswer = Type.Object({ ACCOUNT: Windows, ACH: Windows, DEBIT_CARD: Windows });
