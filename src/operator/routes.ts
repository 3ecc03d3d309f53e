import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { errorResponses, OPERATOR_SECURITY } from '../platform/http/openapi.ts';
import { operatorAction } from './auth.ts';
import { AdvanceClockBody, ClockState } from './schemas.ts';
import { advanceSandboxClock, sandboxClockState } from './service.ts';

const tags = ['Operator'];

export const operatorRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: { advanceSeconds: number } }>(
    '/operator/v1/sandbox/clock',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Move the sandbox clock forward (sandbox only)',
        body: AdvanceClockBody,
        response: { 200: ClockState, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const state = await advanceSandboxClock(
        ctx,
        { action: operatorAction(request), remoteIp: request.ip },
        request.body.advanceSeconds,
      );
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
        response: { 200: ClockState, ...errorResponses(401) },
      },
    },
    async () => sandboxClockState(ctx),
  );
};
