import type { FastifyPluginAsync } from 'fastify';
import { operatorAction } from '../operator/auth.ts';
import type { AppContext } from '../platform/context.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import { createdMasterAnswer, masterAccountRequest, usersApiAnswer, usersApiRequest } from './examples.ts';
import { createMasterAccount, switchUsersApi } from './operator-service.ts';
import { AccountParams, CreatedMaster, MasterAccountBody, UsersApiAnswer, UsersApiBody } from './schemas.ts';

const tags = ['Operator'];

export const identityOperatorRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: MasterAccountBody }>(
    '/operator/v1/accounts',
    {
      config: { answerCarriesSecret: true },
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Create a master account with its first FULL key',
        description:
          'Operator token only. Creates a partner (master account) with its first FULL API key and its callback signing secret; both secrets are in this answer only, hand them to the partner now. `usersApi: true` enables the Users API at once. Audited; repeat safely with an Idempotency-Key.',
        body: withExample(MasterAccountBody, masterAccountRequest),
        response: {
          200: withExample(CreatedMaster, createdMasterAnswer),
          ...errorResponses(400, 401, 409, 422),
        },
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
        description:
          'Operator token only. While off, the partner’s Users API routes (POST /v3/users and the calls made as `user:US_…`) answer 403 `accessDenied.forbidden`; users already created keep their data. Only master accounts have the switch: a sub-account or unknown id answers 404. Audited.',
        params: AccountParams,
        body: withExample(UsersApiBody, usersApiRequest),
        response: { 200: withExample(UsersApiAnswer, usersApiAnswer), ...errorResponses(400, 401, 404) },
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
