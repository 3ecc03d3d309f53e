import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ACCEPTED_MEDIA_TYPES, MAX_DOCUMENT_BYTES } from '../documents/index.ts';
import { ApiError } from '../platform/errors.ts';
import { newExceptionId } from '../platform/ids.ts';
import {
  onboardingPage,
  submitOnboarding,
  submitOnboardingFields,
  type UsersDeps,
  uploadOnboardingDocument,
} from '../users/index.ts';
import { PAGE_SECURITY_HEADERS } from './html.ts';
import { errorPageHtml, onboardingPageHtml } from './onboarding-page.ts';

const TokenParams = {
  type: 'object',
  properties: { token: { type: 'string', minLength: 1, maxLength: 256 } },
  required: ['token'],
} as const;

/**
 * The hosted KYC onboarding page behind `verificationLinkUrl`. It is for people, so errors are
 * HTML pages too (docs/contract.md, decision 11), never the JSON envelope.
 */
export const onboardingWebRoutes: FastifyPluginAsync<{ ctx: UsersDeps }> = async (app, { ctx }) => {
  const sendPage = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).headers(PAGE_SECURITY_HEADERS).type('text/html; charset=utf-8').send(body);

  const htmlErrors = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      if (error.status >= 500) request.log.error({ err: error }, 'onboarding page failed');
      return sendPage(reply, error.status, errorPageHtml(error.status, error.message));
    }
    const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 500;
    const reference = newExceptionId(ctx.exceptionIdPrefix);
    if (status >= 500) request.log.error({ err: error, exceptionId: reference }, 'onboarding page failed');
    const message =
      status >= 500
        ? `Something went wrong on our side. Reference: ${reference}.`
        : 'This request could not be handled.';
    return sendPage(reply, status, errorPageHtml(status, message));
  };

  app.get<{ Params: { token: string } }>(
    '/onboarding/:token',
    {
      errorHandler: htmlErrors,
      schema: { hide: true, params: TokenParams },
      // The link reaches people through mail tools and link trackers that append their own
      // parameters (utm_source, …); the page reads none, so it ignores them all.
      config: { skipQueryGuard: true },
    },
    async (request, reply) => {
      const model = await onboardingPage(ctx, request.params.token);
      return sendPage(reply, 200, onboardingPageHtml(model, request.params.token));
    },
  );

  // A plain HTML form posts here; the token in the path is the capability, the body carries nothing.
  app.post<{ Params: { token: string } }>(
    '/onboarding/:token',
    {
      errorHandler: htmlErrors,
      bodyLimit: 4096,
      config: { rawBodyTypes: ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'] },
      schema: { hide: true, params: TokenParams },
    },
    async (request, reply) => {
      await submitOnboarding(ctx, request.params.token);
      const model = await onboardingPage(ctx, request.params.token);
      return sendPage(reply, 200, onboardingPageHtml(model, request.params.token));
    },
  );

  // The page's script posts the details form here; refusals answer the envelope, naming the field.
  app.post<{ Params: { token: string }; Body: { fields: Record<string, unknown> } }>(
    '/onboarding/:token/fields',
    {
      bodyLimit: 16 * 1024,
      schema: {
        hide: true,
        params: TokenParams,
        body: {
          type: 'object',
          properties: { fields: { type: 'object', maxProperties: 16 } },
          required: ['fields'],
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      await submitOnboardingFields(ctx, request.params.token, request.body.fields);
      return reply.code(204).send();
    },
  );

  // One document, the file itself as the body with its own Content-Type (as the API takes it).
  app.post<{ Params: { token: string; fieldId: string }; Querystring: { docType: string } }>(
    '/onboarding/:token/documents/:fieldId',
    {
      bodyLimit: MAX_DOCUMENT_BYTES,
      config: { rawBodyTypes: [...ACCEPTED_MEDIA_TYPES, 'image/jpg'] },
      schema: {
        hide: true,
        params: {
          type: 'object',
          properties: { ...TokenParams.properties, fieldId: { type: 'string', maxLength: 64 } },
          required: ['token', 'fieldId'],
        },
        querystring: {
          type: 'object',
          properties: { docType: { type: 'string', minLength: 1, maxLength: 32 } },
          required: ['docType'],
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      await uploadOnboardingDocument(ctx, request.params.token, {
        fieldId: request.params.fieldId,
        docType: request.query.docType,
        contentType: request.headers['content-type'],
        body: request.body,
      });
      return reply.code(204).send();
    },
  );
};
