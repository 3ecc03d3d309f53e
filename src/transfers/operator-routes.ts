import type { FastifyPluginAsync } from 'fastify';
import { operatorAct } from '../operator/index.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import { simulateDeposit } from './deposits.ts';
import type { TransferRulesDeps } from './deps.ts';
import { depositAnswer, depositRequest } from './examples.ts';
import { DepositAnswer, DepositBody } from './schemas.ts';

export const transfersOperatorRoutes: FastifyPluginAsync<{ ctx: TransferRulesDeps }> = async (
  app,
  { ctx },
) => {
  app.post<{ Body: DepositBody }>(
    '/operator/v1/sandbox/deposits',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'Sandbox only: simulate an incoming chain deposit to a deposit address',
        description:
          'Operator token only, sandbox only (403 `accessDenied.sandboxOnly` in production). dest is a deposit address (bare or as <chain>:<address>); its owner is credited from external:chain:<chain> in one double-entry posting. An unknown address answers 404; a currency the chain cannot carry 400. Audited; repeat safely with an Idempotency-Key.',
        body: withExample(DepositBody, depositRequest),
        response: {
          200: withExample(DepositAnswer, depositAnswer),
          ...errorResponses(400, 401, 403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const act = operatorAct(request);
      const outcome = await runIdempotent(ctx, request, 'operator', (tx) =>
        simulateDeposit(ctx, tx, act, request.body),
      );
      request.operatorAudited = true;
      return sendIdempotent(reply, outcome);
    },
  );
};
