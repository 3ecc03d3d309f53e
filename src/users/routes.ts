import type { FastifyPluginAsync } from 'fastify';
import { ACCEPTED_MEDIA_TYPES, MAX_DOCUMENT_BYTES } from '../documents/index.ts';
import { callerOf, idempotencyScope, scopeOf, sessionUserScope } from '../identity/index.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import type { UsersDeps } from './deps.ts';
import { uploadDocument } from './documents-service.ts';
import {
  createdUserAnswer,
  createUserRequest,
  onboardingAnswer,
  updateUserRequest,
  userAnswer,
} from './examples.ts';
import { onboardingLink } from './onboarding-service.ts';
import {
  CreateUserBody,
  DocumentParams,
  DocumentQuery,
  OnboardingAnswer,
  UpdateUserBody,
  User,
  UserParams,
  UserQuery,
} from './schemas.ts';
import { createUser, createUserForToken, getUser, updateUser } from './users-service.ts';

const tags = ['Users'];

export const usersRoutes: FastifyPluginAsync<{ ctx: UsersDeps }> = async (app, { ctx }) => {
  app.post<{ Body: CreateUserBody }>(
    '/v3/users',
    {
      // An untied decentralized token creates its user here and is tied to it (decision 95).
      config: { allowUntiedSession: true },
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Create a user (master account with the Users API enabled)',
        description:
          'A master account key whose Users API the operator enabled, acting as itself (no masqueradeAs); otherwise 403. An untied decentralized token (POST /v2/sessions/auth/key) sends `partnerId` (`PT_…`) instead: the user is created under that partner and the token is tied to it (the answer adds `authenticatedAs`: `user:US_…`), after which the token acts only as that user; an unknown partner or one without the Users API is 400 `validation.invalidPartnerId`. The user gets the scopes asked for (default: TRANSFER) and deposit addresses on the `blockchains` given; the fields sent are checked all or nothing (unknown fieldId: 400 `validation.unknownField`). A scope whose requirements are all met goes to review (in sandbox it is approved at once).',
        body: withExample(CreateUserBody, createUserRequest),
        response: {
          200: withExample(User, createdUserAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const untied = request.scope === undefined;
      const scope =
        request.scope ?? (await sessionUserScope(ctx.db, callerOf(request), request.body.partnerId));
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        untied ? createUserForToken(ctx, tx, scope, request.body) : createUser(ctx, tx, scope, request.body),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Params: { userId: string }; Querystring: { scopes?: string } }>(
    '/v3/users/:userId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Read a user (masqueradeAs=user:<id>); scopes= narrows to what those scopes require',
        description:
          'The partner masquerading as this same user (`masqueradeAs=user:US_…`); any other user, or no masquerade, answers 403 `accessDenied.forbidden` whether or not the user exists. Shows each field with its status and review error, each scope with what it still needs, deposit addresses and balances.',
        params: UserParams,
        querystring: UserQuery,
        response: { 200: withExample(User, userAnswer), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => getUser(ctx, scopeOf(request), request.params.userId, request.query.scopes),
  );

  app.post<{ Params: { userId: string }; Body: UpdateUserBody }>(
    '/v3/users/:userId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Submit user fields (masqueradeAs=user:<id>); all or nothing',
        description:
          'Masquerading as this user. Submits KYC fields the user still has OPEN, adds scopes or deposit-address blockchains; every field is checked before any is stored. Fields under review or approved are locked (400 `validation.fieldLocked`); documents are uploaded with POST /v3/users/{userId}/{fieldId}. A CLOSED user answers 403 `accessDenied.userClosed`.',
        params: UserParams,
        body: withExample(UpdateUserBody, updateUserRequest),
        response: { 200: withExample(User, userAnswer), ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        updateUser(ctx, tx, scope, request.params.userId, request.body),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Params: { userId: string } }>(
    '/v3/users/:userId/onboarding',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'The hosted KYC onboarding link for a user (masqueradeAs=user:<id>)',
        description:
          'Masquerading as this user. A signed link to the hosted onboarding page, valid for an hour; send the user there when a scope says `onboardingRequired` (ACH, DEBIT_CARD_L2). Ask again for a fresh link; `status` tells whether the user already submitted.',
        params: UserParams,
        response: {
          200: withExample(OnboardingAnswer, onboardingAnswer),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => onboardingLink(ctx, scopeOf(request), request.params.userId),
  );

  app.post<{ Params: { userId: string; fieldId: string }; Querystring: { docType: string } }>(
    '/v3/users/:userId/:fieldId',
    {
      // Fastify stops reading once the limit is passed and answers 413 (Content-Length is checked
      // before any byte is read), so an oversized upload never sits in memory whole.
      bodyLimit: MAX_DOCUMENT_BYTES,
      config: { rawBodyTypes: [...ACCEPTED_MEDIA_TYPES, 'image/jpg'] },
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Upload an identity document (raw body, at most 7.75 MiB; PDF, JPEG, PNG, DOC, DOCX)',
        description:
          'Masquerading as this user. The body is the file itself with its Content-Type; the content must match that type (400 `validation.contentTypeMismatch`), an empty file is refused. `docType` must suit the field (e.g. `governmentIdFront`: GOVT_ID, DRIVING_LICENSE, PASSPORT_CARD or PASSPORT). Larger than 7.75 MiB: 413; other media types: 415. Answers 204 with no body.',
        params: DocumentParams,
        querystring: DocumentQuery,
        // Documentation of the raw body only: each media type's schema accepts any bytes, and the
        // service checks the content itself.
        body: {
          content: Object.fromEntries(
            ACCEPTED_MEDIA_TYPES.map((type) => [
              type,
              { schema: { description: 'The document file, as is', format: 'binary' } },
            ]),
          ),
        },
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      await uploadDocument(ctx, scopeOf(request), {
        userId: request.params.userId,
        fieldId: request.params.fieldId,
        docType: request.query.docType,
        contentType: request.headers['content-type'],
        body: request.body,
      });
      return reply.code(204).send();
    },
  );
};
