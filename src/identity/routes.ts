import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { ChainsDeps } from '../chains/index.ts';
import { ApiError, fieldRequired } from '../platform/errors.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import { callerOf, idempotencyScope, scopeOf } from './access.ts';
import { createAccount, getAccount, updateAccount } from './accounts-service.ts';
import {
  accountAnswer,
  createAccountRequest,
  createdKeyAnswer,
  createKeyRequest,
  sessionAnswer,
  sessionRequest,
  updateAccountRequest,
} from './examples.ts';
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

export const identityRoutes: FastifyPluginAsync<{ ctx: ChainsDeps }> = async (app, { ctx }) => {
  app.post<{ Querystring: { secretKey?: string }; Body: { secretKey?: string } | undefined }>(
    '/v2/sessions/auth/key',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['Authentication'],
        summary: 'Register a client-generated secret as a decentralized bearer token',
        description:
          'No credentials: anyone may call it. Send `secretKey` (25-128 printable characters, from a CSPRNG) in the query or the JSON body, not both; it then works as `Authorization: Bearer <secretKey>`. `authenticatedAs` stays null until the session creates its account (POST /v3/accounts). A secret already registered is refused (400 `validation.secretKeyInUse`).',
        querystring: SessionQuery,
        body: withExample(SessionBody, sessionRequest),
        response: { 200: withExample(SessionAnswer, sessionAnswer), ...errorResponses(400, 409, 422, 429) },
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
        description:
          'A master account key creates a custodial sub-account with `subaccount: true` (other accounts get 403 `accessDenied.forbidden`); an untied decentralized session creates its own INDIVIDUAL account and is tied to it. Any other credential already has its account (400 `validation.accountAlreadyExists`). `referrerAccountId` must be your own account id. Profile fields sent here start PENDING review.',
        body: withExample(CreateAccountBody, createAccountRequest),
        response: {
          200: withExample(Account, accountAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      // A session's own account is created untied and replayed tied: both in the session key's space.
      const session = caller.account === undefined || caller.account.kind === 'individual';
      const scopeKey =
        request.scope && !session ? idempotencyScope(request.scope) : `session:${caller.apiKey}`;
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
        description:
          'Any key of the account, or a master key for one of its sub-accounts (directly or with `masqueradeAs=AC_…`). Shows the profile fields with their review status and the ledger balances (`totalBalances` includes held amounts, `availableBalances` does not). An account outside your tree answers 404, as an unknown id does.',
        params: AccountParams,
        response: { 200: withExample(Account, accountAnswer), ...errorResponses(400, 401, 403, 404, 429) },
      },
      config: { withOwnBalances: true },
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
        description:
          'Sets the given profile fields (PENDING review) on your account or a sub-account you reach; every field is validated before any is stored, so one bad field changes nothing (400 naming it in `problematicField`). APPROVED fields cannot change; a CLOSED account answers 403 `accessDenied.accountClosed`. READONLY keys get 403.',
        params: AccountParams,
        body: withExample(UpdateAccountBody, updateAccountRequest),
        response: {
          200: withExample(Account, accountAnswer),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
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
      config: { answerCarriesSecret: true },
      schema: {
        tags: ['Authentication'],
        security: PARTNER_SECURITY,
        summary: 'Create an API key (secret shown once)',
        description:
          'A FULL key of the account (or a master masquerading as a sub-account) mints a FULL or READONLY key for that account; READONLY keys get 403. `ipWhitelist` takes IPv4/IPv6 addresses or CIDR ranges (empty: any address); a key with a whitelist of its own may only create keys whose every entry lies within it (403 `accessDenied.forbidden` naming the entry otherwise), and called with a bearer token the whitelist also restricts that token. The `secretKey` is in this answer only: store it now, it cannot be read again.',
        body: withExample(CreateKeyBody, createKeyRequest),
        response: {
          200: withExample(CreatedKey, createdKeyAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429),
        },
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
        description:
          'Deletes your own key or another key of your account; a master key reaches every key of its sub-accounts too, and an untied decentralized session only itself. A key outside that reach answers 404, as an unknown one does. Answers an empty object.',
        params: KeyParams,
        response: {
          200: withExample(Type.Object({}, { additionalProperties: false }), {}),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => deleteApiKey(ctx, callerOf(request), request.params.apiKey),
  );
};
