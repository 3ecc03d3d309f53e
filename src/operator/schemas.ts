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

export const BootstrapBody = Type.Object(
  {
    email: Type.String({
      minLength: 3,
      maxLength: 254,
      description: 'The first admin’s e-mail (their sign-in name)',
    }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Their name, as the console shows it' }),
    password: Type.String({
      minLength: 12,
      maxLength: 200,
      description: 'Their password, at least 12 characters',
    }),
  },
  { additionalProperties: false },
);

export const BootstrapAnswer = Type.Object({
  operatorId: Type.String({ description: 'OP_… id of the new admin' }),
  email: Type.String(),
  name: Type.String(),
  role: Type.Literal('admin'),
  signInUrl: Type.String({ description: 'Where the admin signs in (and enrols the TOTP second factor)' }),
});
