import { EXAMPLE_TIME } from '../platform/http/examples.ts';

/** OpenAPI examples of the sandbox clock: one hour ahead of real time. */

export const advanceClockRequest = { advanceSeconds: 3600 };
export const clockAnswer = { offsetSeconds: 3600, now: EXAMPLE_TIME };

export const bootstrapRequest = {
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  password: 'correct horse battery',
};
export const bootstrapAnswer = {
  operatorId: 'OP_7KQ2MXD9F4H',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  role: 'admin' as const,
  signInUrl: 'https://rampart.example/console/sign-in',
};
