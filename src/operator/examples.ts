import { EXAMPLE_TIME } from '../platform/http/examples.ts';

/** OpenAPI examples of the sandbox clock: one hour ahead of real time. */

export const advanceClockRequest = { advanceSeconds: 3600 };
export const clockAnswer = { offsetSeconds: 3600, now: EXAMPLE_TIME };
