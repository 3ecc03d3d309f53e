import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { operatorAct } from '../operator/index.ts';
import type { AppContext } from '../platform/context.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import {
  createdMasterAnswer,
  keyListingAnswer,
  masterAccountRequest,
  operatorKeyAnswer,
  operatorKeyRequest,
  usersApiAnswer,
  usersApiRequest,
} from './examples.ts';
import {
  createAccountKey,
  createMasterAccount,
  listAccountKeys,
  revokeAccountKey,
  switchUsersApi,
} from './operator-service.ts';
import {
  AccountKeyParams,
  AccountParams,
  CreatedKey,
  CreatedMaster,
  CreateKeyBody,
  KeyListing,
  MasterAccountBody,
  UsersApiAnswer,
  UsersApiBody,
} from './schemas.ts';

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
      const act = operatorAct(request);
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
      const act = operatorAct(request);
      const answer = await switchUsersApi(ctx, act, request.params.accountId, request.body.enabled);
      request.operatorAudited = true;
      return answer;
    },
  );

  app.post<{ Params: { accountId: string }; Body: CreateKeyBody }>(
    '/operator/v1/accounts/:accountId/api-keys',
    {
      config: { answerCarriesSecret: true },
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Create an API key for an existing account (secret shown once)',
        description:
          'Operator token only. Mints a FULL or READONLY key for any account, as the partner’s own POST /v2/apiKeys does: how a partner whose every secret is lost gets a new one without a new account. The `secretKey` is in this answer only. An unknown account answers 404. Audited (the key, never its secret); repeat safely with an Idempotency-Key.',
        params: AccountParams,
        body: withExample(CreateKeyBody, operatorKeyRequest),
        response: {
          200: withExample(CreatedKey, operatorKeyAnswer),
          ...errorResponses(400, 401, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const act = operatorAct(request);
      const outcome = await runIdempotent(ctx, request, 'operator', (tx) =>
        createAccountKey(ctx, tx, act, request.params.accountId, request.body ?? {}),
      );
      request.operatorAudited = true;
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Params: { accountId: string } }>(
    '/operator/v1/accounts/:accountId/api-keys',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'List the live API keys of an account',
        description:
          'Operator token only. Every key of the account that is not deleted, oldest first, with its type, description, whitelist and who made it (`operator`, `api`, `session`); never a secret. An unknown account answers 404. Audited.',
        params: AccountParams,
        response: { 200: withExample(KeyListing, keyListingAnswer), ...errorResponses(401, 404) },
      },
    },
    async (request) => listAccountKeys(ctx, request.params.accountId),
  );

  app.delete<{ Params: { accountId: string; apiKey: string } }>(
    '/operator/v1/accounts/:accountId/api-keys/:apiKey',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Revoke an API key of an account',
        description:
          'Operator token only. Deletes the key: it stops working at once on every instance, by signature and by bearer. A key that is not a live key of that account answers 404. Answers an empty object. Audited.',
        params: AccountKeyParams,
        response: {
          200: withExample(Type.Object({}, { additionalProperties: false }), {}),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      const act = operatorAct(request);
      const answer = await revokeAccountKey(ctx, act, request.params.accountId, request.params.apiKey);
      request.operatorAudited = true;
      return answer;
    },
  );
};
