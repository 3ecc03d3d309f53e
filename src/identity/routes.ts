import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { ApiError, fieldRequired } from '../platform/errors.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY } from '../platform/http/openapi.ts';
import { callerOf, idempotencyScope, scopeOf } from './access.ts';
import { createAccount, getAccount, updateAccount } from './accounts-service.ts';
import { createApiKey, deleteApiKey, registerSessionSecret } from './keys-service.ts';
import {
  Account,
  AccountParams,
  CreateAccountBody,
  CreatedKey,
  CreateKeyBody,
  KeyParams,
  SessionAnswer,
  SessionBody,
  SessionQuery,
  UpdateAccountBody,
} from './schemas.ts';
import { hashSecret } from './secrets.ts';

export const identityRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Querystring: { secretKey?: string }; Body: { secretKey?: string } | undefined }>(
    '/v2/sessions/auth/key',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['Authentication'],
        summary: 'Register a client-generated secret as a decentralized bearer token',
        description:
          'Send `secretKey` (25-128 printable characters, from a CSPRNG) in the query or the JSON body.',
        querystring: SessionQuery,
        body: SessionBody,
        response: { 200: SessionAnswer, ...errorResponses(400, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const fromQuery = request.query.secretKey;
      const fromBody = request.body?.secretKey;
      if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
        throw new ApiError(
          'ValidationException',
          'validation.invalidValue',
          'Send secretKey in the query or the body, not both.',
          {
            problematicField: 'secretKey',
          },
        );
      }
      const secretKey = fromQuery ?? fromBody;
      if (secretKey === undefined) throw fieldRequired('secretKey');
      const outcome = await runIdempotent(ctx, request, `session:${hashSecret(secretKey)}`, (tx) =>
        registerSessionSecret(ctx, tx, secretKey),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.post<{ Body: CreateAccountBody }>(
    '/v3/accounts',
    {
      config: { allowUntiedSession: true },
      schema: {
        tags: ['Accounts'],
        security: PARTNER_SECURITY,
        summary:
          "Create an account: a sub-account (subaccount: true, masters) or a decentralized session's own account",
        body: CreateAccountBody,
        response: { 200: Account, ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const scopeKey = request.scope ? idempotencyScope(request.scope) : `session:${caller.apiKey}`;
      const outcome = await runIdempotent(ctx, request, scopeKey, (tx) =>
        createAccount(ctx, tx, caller, request.body),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Params: { accountId: string } }>(
    '/v3/accounts/:accountId',
    {
      schema: {
        tags: ['Accounts'],
        security: PARTNER_SECURITY,
        summary: 'Read an account (yours, or your sub-account via masqueradeAs)',
        params: AccountParams,
        response: { 200: Account, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => getAccount(ctx, scopeOf(request), request.params.accountId),
  );

  app.post<{ Params: { accountId: string }; Body: UpdateAccountBody }>(
    '/v3/accounts/:accountId',
    {
      schema: {
        tags: ['Accounts'],
        security: PARTNER_SECURITY,
        summary: 'Submit profile fields (all or nothing)',
        params: AccountParams,
        body: UpdateAccountBody,
        response: { 200: Account, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        updateAccount(ctx, tx, scope, request.params.accountId, request.body.profileFields),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.post<{ Body: CreateKeyBody }>(
    '/v2/apiKeys',
    {
      schema: {
        tags: ['Authentication'],
        security: PARTNER_SECURITY,
        summary: 'Create an API key (secret shown once)',
        body: CreateKeyBody,
        response: { 200: CreatedKey, ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        createApiKey(ctx, tx, scope, request.body ?? {}),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.delete<{ Params: { apiKey: string } }>(
    '/v2/apiKey/:apiKey',
    {
      config: { allowUntiedSession: true },
      schema: {
        tags: ['Authentication'],
        security: PARTNER_SECURITY,
        summary: 'Delete an API key; it stops working at once everywhere',
        params: KeyParams,
        response: {
          200: { type: 'object', additionalProperties: false },
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => deleteApiKey(ctx, callerOf(request), request.params.apiKey),
  );
};
