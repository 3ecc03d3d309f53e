import type { FastifyPluginAsync } from 'fastify';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import { operatorAct } from './auth.ts';
import { advanceClockRequest, clockAnswer } from './examples.ts';
import { AdvanceClockBody, ClockState } from './schemas.ts';
import { advanceSandboxClock, type OperatorDeps, sandboxClockState } from './service.ts';

const tags = ['Operator'];

export const operatorRoutes: FastifyPluginAsync<{ ctx: OperatorDeps }> = async (app, { ctx }) => {
  app.post<{ Body: { advanceSeconds: number } }>(
    '/operator/v1/sandbox/clock',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Move the sandbox clock forward (sandbox only)',
        description:
          'Operator token only, sandbox only (403 `accessDenied.sandboxOnly` in production). Moves the clock that every business time uses (quote and reservation expiry, authorization codes, limit windows) forward, never back, for every process sharing the database; use it to test expiries without waiting. Audited.',
        body: withExample(AdvanceClockBody, advanceClockRequest),
        response: { 200: withExample(ClockState, clockAnswer), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const state = await advanceSandboxClock(ctx, operatorAct(request), request.body.advanceSeconds);
      request.operatorAudited = true;
      return state;
    },
  );

  app.get(
    '/operator/v1/sandbox/clock',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Read the sandbox clock',
        description:
          'Operator token only. The service clock now (epoch milliseconds) and how far it was moved ahead of real time; outside sandbox the offset is always 0.',
        response: { 200: withExample(ClockState, clockAnswer), ...errorResponses(401) },
      },
    },
    async () => sandboxClockState(ctx),
  );
};
