import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../platform/errors.ts';
import { newExceptionId } from '../platform/ids.ts';
import type { UsersDeps } from '../users/deps.ts';
import { onboardingPage, submitOnboarding } from '../users/onboarding-service.ts';
import { PAGE_SECURITY_HEADERS } from './html.ts';
import { errorPageHtml, onboardingPageHtml } from './onboarding-page.ts';

const TokenParams = {
  type: 'object',
  properties: { token: { type: 'string', minLength: 1, maxLength: 256 } },
  required: ['token'],
} as const;

/**
 * The hosted KYC onboarding page behind `verificationLinkUrl`. It is for people, so errors are
 * HTML pages too (API.md decision 11), never the JSON envelope.
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
};
