import { Type } from 'typebox';

export const AdvanceClockBody = Type.Object(
  {
    advanceSeconds: Type.Integer({
      minimum: 1,
      maximum: 10 * 366 * 24 * 3600,
      description: 'Seconds to move forward',
    }),
  },
  { additionalProperties: false },
);

export const ClockState = Type.Object({
  offsetSeconds: Type.Number({ description: 'Total offset of the sandbox clock from real time' }),
  now: Type.Integer({ description: 'The sandbox clock, epoch milliseconds' }),
});
