import type { FastifyPluginAsync } from 'fastify';
import { operatorAction } from '../operator/auth.ts';
import type { AppContext } from '../platform/context.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, OPERATOR_SECURITY } from '../platform/http/openapi.ts';
import { createMasterAccount, switchUsersApi } from './operator-service.ts';
import { AccountParams, CreatedMaster, MasterAccountBody, UsersApiAnswer, UsersApiBody } from './schemas.ts';

const tags = ['Operator'];

export const identityOperatorRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: MasterAccountBody }>(
    '/operator/v1/accounts',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Create a master account with its first FULL key',
        body: MasterAccountBody,
        response: { 200: CreatedMaster, ...errorResponses(400, 401, 409, 422) },
      },
    },
    async (request, reply) => {
      const act = { action: operatorAction(request), remoteIp: request.ip };
      const outcome = await runIdempotent(ctx, request, 'operator', (tx) =>
        createMasterAccount(ctx, tx, act, request.body),
      );
      request.operatorAudited = true;
      return sendIdempotent(reply, outcome);
    },
  );

  app.post<{ Params: { accountId: string }; Body: { enabled: boolean } }>(
    '/operator/v1/accounts/:accountId/users-api',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Switch the Users API on or off for a master account',
        params: AccountParams,
        body: UsersApiBody,
        response: { 200: UsersApiAnswer, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const act = { action: operatorAction(request), remoteIp: request.ip };
      const answer = await switchUsersApi(ctx, act, request.params.accountId, request.body.enabled);
      request.operatorAudited = true;
      return answer;
    },
  );
};
