import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../platform/errors.ts';
import { newExceptionId } from '../platform/ids.ts';
import { errorPageHtml, PAGE_SECURITY_HEADERS } from '../web/index.ts';
import { decideThreeDs } from './authorization.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { RESERVATION_REDIRECT, ThreeDsPageParams, ThreeDsPageQuery } from './schemas.ts';
import {
  readOrderBody,
  threeDsRedirectOrigins,
  threeDsRedirectTarget,
  threeDsTokenValid,
} from './service.ts';
import { safeReturnPath, threeDsOutcomeHtml, threeDsPageHeaders, threeDsPageHtml } from './three-ds-page.ts';

/**
 * Only with a processor whose issuer Rampart simulates (the sandbox's): the issuer page behind `authorization3dsUrl`. HTML for people, errors
 * included (docs/contract.md, decision 11). The path's token (HMAC of the order id) is the capability.
 */
export const threeDsRoutes: FastifyPluginAsync<{ ctx: WalletOrdersDeps }> = async (app, { ctx }) => {
  if (!ctx.cardProcessor.simulatesIssuer) return;
  const sendPage = (reply: FastifyReply, status: number, body: string, headers = PAGE_SECURITY_HEADERS) =>
    reply.code(status).headers(headers).type('text/html; charset=utf-8').send(body);
  const htmlErrors = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const status = error instanceof ApiError ? error.status : (error.statusCode ?? 500);
    const reference = newExceptionId(ctx.exceptionIdPrefix);
    if (status >= 500) request.log.error({ err: error, exceptionId: reference }, '3-D Secure page failed');
    const message =
      status >= 500 ? `Something went wrong. Reference: ${reference}.` : 'This link is not valid.';
    return sendPage(reply, status >= 500 ? 500 : status === 404 ? 404 : 400, errorPageHtml(status, message));
  };
  const notFound = () => new ApiError('NotFoundException', 'notFound', 'Not found.');

  app.get<{
    Params: { orderId: string; token: string };
    Querystring: { returnUrl?: string; redirect?: string };
  }>(
    '/sandbox/3ds/:orderId/:token',
    {
      errorHandler: htmlErrors,
      schema: { hide: true, params: ThreeDsPageParams, querystring: ThreeDsPageQuery },
    },
    async (request, reply) => {
      const { orderId, token } = request.params;
      if (!threeDsTokenValid(ctx, orderId, token)) throw notFound();
      const order = await readOrderBody(ctx, orderId);
      const action = `/sandbox/3ds/${encodeURIComponent(orderId)}/${encodeURIComponent(token)}`;
      const { returnUrl, redirect } = request.query;
      const html = threeDsPageHtml(order, action, safeReturnPath(returnUrl), redirect);
      const origins = redirect === undefined ? [] : await threeDsRedirectOrigins(ctx, orderId);
      return sendPage(reply, 200, html, threeDsPageHeaders(origins));
    },
  );

  app.post<{ Params: { orderId: string; token: string } }>(
    '/sandbox/3ds/:orderId/:token',
    {
      errorHandler: htmlErrors,
      bodyLimit: 4096,
      config: { rawBodyTypes: ['application/x-www-form-urlencoded'] },
      schema: { hide: true, params: ThreeDsPageParams },
    },
    async (request, reply) => {
      const { orderId, token } = request.params;
      if (!threeDsTokenValid(ctx, orderId, token)) throw notFound();
      const form = new URLSearchParams(Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '');
      const decision = form.get('decision');
      if (decision !== 'approve' && decision !== 'decline') {
        throw new ApiError('ValidationException', 'validation.invalidValue', 'Choose approve or decline.');
      }
      const outcome = await decideThreeDs(ctx, orderId, decision === 'approve' ? 'APPROVED' : 'DECLINED');
      // The with-redirection URL: on to the reservation's own URLs (docs/contract.md decision 42).
      const onward =
        form.get('redirect') === RESERVATION_REDIRECT ? await threeDsRedirectTarget(ctx, orderId) : undefined;
      if (onward) return reply.code(303).headers(PAGE_SECURITY_HEADERS).header('location', onward).send();
      const returnPath = safeReturnPath(form.get('returnUrl') ?? undefined);
      if (returnPath)
        return reply.code(303).headers(PAGE_SECURITY_HEADERS).header('location', returnPath).send();
      return sendPage(reply, 200, threeDsOutcomeHtml(outcome));
    },
  );
};
