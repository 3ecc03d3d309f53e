import { EXAMPLE_IDS, EXAMPLE_KEYS, EXAMPLE_TIME, exampleTime } from '../platform/http/examples.ts';

/** OpenAPI examples of data subscriptions and, for the operator, their callback deliveries. */

const notifyTarget = 'https://wallet.example.com/hooks/rampart';

export const createSubscriptionRequest = {
  subscribeTo: `user:${EXAMPLE_IDS.user}`,
  notifyTarget,
};

export const subscriptionAnswer = {
  id: EXAMPLE_IDS.subscription,
  subscribed: `user:${EXAMPLE_IDS.user}`,
  notifyTarget,
  createdAt: EXAMPLE_TIME,
  failure: null,
  failCount: 0,
};

export const subscriptionListAnswer = {
  data: [subscriptionAnswer],
  position: 0,
  recordsTotal: 1,
  recordsFiltered: 1,
};

export const signingSecretAnswer = { webhookSecret: EXAMPLE_KEYS.webhookSecret };

/** The callback about the example transfer, delivered on the first attempt. */
export const deliveryAnswer = {
  id: EXAMPLE_IDS.delivery,
  subscriptionId: EXAMPLE_IDS.subscription,
  trigger: `transfer:${EXAMPLE_IDS.transfer}`,
  url: notifyTarget,
  status: 'DELIVERED' as const,
  attempts: 1,
  lastError: null,
  lastStatusCode: 200,
  createdAt: exampleTime(30),
};

export const deliveryListAnswer = { data: [deliveryAnswer] };

export const deliveryDetailAnswer = {
  ...deliveryAnswer,
  attemptLog: [{ startedAt: exampleTime(31), statusCode: 200, latencyMs: 84, error: null }],
};

/** Queued again: PENDING until the worker delivers it. */
export const resentDeliveryAnswer = { ...deliveryAnswer, status: 'PENDING' as const };
