import { Type } from 'typebox';
import { MAX_ADVANCE_SECONDS } from './service.ts';

export const AdvanceClockBody = Type.Object(
  {
    advanceSeconds: Type.Integer({
      minimum: 1,
      maximum: MAX_ADVANCE_SECONDS,
      description: 'Seconds to move forward',
    }),
  },
  { additionalProperties: false },
);

export const ClockState = Type.Object({
  offsetSeconds: Type.Number({ description: 'Total offset of the sandbox clock from real time' }),
  now: Type.Integer({ description: 'The sandbox clock, epoch milliseconds' }),
});
