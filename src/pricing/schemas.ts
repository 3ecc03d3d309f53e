import { Type } from 'typebox';

const Decimal = Type.Union([Type.Number(), Type.String({ maxLength: 64 })], {
  description: 'Exact decimal, as a JSON number or a string',
});

export const RatesQuery = Type.Object({
  as: Type.Optional(
    Type.String({ maxLength: 16, description: 'DIVISOR (default), MULTIPLIER or PRICED; case-insensitive' }),
  ),
  pretty: Type.Optional(Type.String({ maxLength: 8, description: 'Accepted and ignored' })),
});

export const RatesAnswer = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Keyed `<FROM><TO>`: a number (DIVISOR, MULTIPLIER) or {FROM: n, TO: n} (PRICED)',
});

export const ReferencePricesBody = Type.Record(
  Type.String({ pattern: '^[A-Z]{3,5}$' }),
  Type.Union([Decimal, Type.Object({ USD: Decimal }, { additionalProperties: false })]),
  { description: '`{"BTC": {"USD": "60000"}}`: USD per one unit', maxProperties: 200, minProperties: 1 },
);

export const ReferencePricesAnswer = Type.Object({
  source: Type.String({ description: 'The configured source: reference or feed' }),
  prices: Type.Record(Type.String(), Type.Object({ USD: Type.String() })),
});

const FeeRuleSchema = Type.Object(
  { percent: Decimal, flat: Decimal, minOrder: Decimal, maxOrder: Decimal },
  { additionalProperties: false },
);

export const FeeScheduleBody = Type.Object(
  {
    methods: Type.Record(
      Type.String({ maxLength: 32 }),
      Type.Record(Type.String({ pattern: '^[A-Z]{3,5}$' }), FeeRuleSchema, { maxProperties: 100 }),
      { minProperties: 1, maxProperties: 10 },
    ),
    networkFees: Type.Record(Type.String({ pattern: '^[A-Z]{3,5}$' }), Decimal, {
      minProperties: 1,
      maxProperties: 100,
    }),
  },
  { additionalProperties: false },
);

export const FeeScheduleAnswer = Type.Object({
  methods: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Type.String()))),
  networkFees: Type.Record(Type.String(), Type.String()),
});
