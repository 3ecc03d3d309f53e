import { type Static, Type } from 'typebox';
import { MAX_NOTIFY_URL_LENGTH } from './limits.ts';

export const CreateSubscriptionBody = Type.Object(
  {
    subscribeTo: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'SRN you own: account:AC_…, user:US_… or transfer:TF_… (a bare AC_… is an account)',
    }),
    notifyTarget: Type.String({
      minLength: 1,
      maxLength: MAX_NOTIFY_URL_LENGTH,
      description:
        'Where callbacks are POSTed: https with a public address (sandbox also http and, unless RAMPART_CALLBACK_ALLOW_LOOPBACK is false, loopback)',
    }),
  },
  { additionalProperties: false },
);
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;

export const Subscription = Type.Object({
  id: Type.String({ description: 'DA_…' }),
  subscribed: Type.String({ description: 'The SRN subscribed to' }),
  notifyTarget: Type.String(),
  createdAt: Type.Integer({ description: 'epoch ms' }),
  failure: Type.Union([Type.String(), Type.Null()], {
    description:
      'How the last attempt failed, coarsely: `refusedByReceiver (HTTP <status>)` (any answer but 200, redirects included), `unreachable` (address refused, DNS, connection or TLS failed) or `timedOut`; null after a success or before the first attempt',
  }),
  failCount: Type.Integer({ description: 'Failed attempts since the last success' }),
});

export const SubscriptionList = Type.Object({
  data: Type.Array(Subscription),
  position: Type.Integer(),
  recordsTotal: Type.Integer(),
  recordsFiltered: Type.Integer(),
});

export const ListQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

export const SubscriptionParams = Type.Object({
  subscriptionId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const SigningSecret = Type.Object({
  webhookSecret: Type.String({
    description: 'Key of the X-Rampart-Signature HMAC (docs/contract.md, decision 10)',
  }),
});

export const DeliveryStatusText = Type.Union([
  Type.Literal('PENDING'),
  Type.Literal('DELIVERED'),
  Type.Literal('FAILED'),
]);

export const DeliveryListQuery = Type.Object({
  status: Type.Optional(DeliveryStatusText),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

export const Delivery = Type.Object({
  id: Type.String({ description: 'CB_…' }),
  subscriptionId: Type.Union([Type.String(), Type.Null()]),
  trigger: Type.String(),
  url: Type.String(),
  status: DeliveryStatusText,
  attempts: Type.Integer(),
  lastError: Type.Union([Type.String(), Type.Null()]),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.Integer({ description: 'epoch ms' }),
});

export const DeliveryDetail = Type.Object({
  ...Delivery.properties,
  attemptLog: Type.Array(
    Type.Object({
      startedAt: Type.Integer({ description: 'epoch ms' }),
      statusCode: Type.Union([Type.Integer(), Type.Null()]),
      latencyMs: Type.Integer(),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

export const DeliveryList = Type.Object({ data: Type.Array(Delivery) });

export const DeliveryParams = Type.Object({ deliveryId: Type.String({ minLength: 1, maxLength: 64 }) });
