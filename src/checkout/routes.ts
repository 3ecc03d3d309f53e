import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError, notFound } from '../platform/errors.ts';
import { errorResponses } from '../platform/http/openapi.ts';
import { newExceptionId } from '../platform/ids.ts';
import { ProcessBody, parseProcessBody, type WalletOrdersDeps } from '../wallet-orders/index.ts';
import { ASSETS, PAGE_SECURITY_HEADERS, themeCss } from '../web/index.ts';
import {
  type CheckoutErrorKind,
  checkoutErrorHtml,
  checkoutPageHtml,
  endedPageHtml,
  noScriptHtml,
  progressPageHtml,
} from './page.ts';
import {
  AssetParams,
  CodesAnswer,
  CodesBody,
  OrderParams,
  OrderQuery,
  PageQuery,
  PlacedOrder,
  Progress,
  QuoteAnswer,
  QuoteBody,
} from './schemas.ts';
import { checkoutQuote, openCheckout, orderProgress, placeOrder, quoteText, submitCodes } from './service.ts';

/**
 * Strict: only our own script, stylesheet and JSON endpoints; no inline script or style; no
 * framing (a card form inside someone else's page invites clickjacking, and 3-D Secure pages
 * refuse frames anyway); forms post only to us: the hosted pages' headers.
 */
export const CHECKOUT_SECURITY_HEADERS = PAGE_SECURITY_HEADERS;

const tags = ['Hosted checkout'];

/** Which page a refusal of GET /purchase shows, by its errorCode. */
function errorKind(errorCode: string): CheckoutErrorKind {
  if (errorCode === 'checkout.unknownOrder') return 'unknownOrder';
  if (errorCode === 'checkout.redirectMismatch') return 'altered';
  if (errorCode === 'checkout.unknownReservation') return 'invalid';
  return 'incomplete';
}

/**
 * The hosted checkout (docs/contract.md, Hosted pages): GET /purchase for people, errors as HTML pages
 * (decision 11); the page's own JSON endpoints under /purchase/ answer the envelope. None needs
 * partner credentials: the reservation id in the link is the buyer's capability.
 */
export const checkoutRoutes: FastifyPluginAsync<{ ctx: WalletOrdersDeps }> = async (app, { ctx }) => {
  const sendPage = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).headers(CHECKOUT_SECURITY_HEADERS).type('text/html; charset=utf-8').send(body);

  const htmlErrors = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError && error.status < 500) {
      return sendPage(reply, error.status, checkoutErrorHtml(errorKind(error.errorCode)));
    }
    const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 500;
    const reference = newExceptionId(ctx.exceptionIdPrefix);
    if (status >= 500) request.log.error({ err: error, exceptionId: reference }, 'checkout page failed');
    return sendPage(
      reply,
      status,
      checkoutErrorHtml(status >= 500 ? 'serverError' : 'incomplete', reference),
    );
  };

  app.get<{ Querystring: PageQuery }>(
    '/purchase',
    { errorHandler: htmlErrors, schema: { hide: true, querystring: PageQuery } },
    async (request, reply) => {
      const model = await openCheckout(ctx, request.query);
      if (model.kind === 'ended') return sendPage(reply, 410, endedPageHtml(model));
      return sendPage(reply, 200, model.kind === 'form' ? checkoutPageHtml(model) : progressPageHtml(model));
    },
  );

  app.get<{ Params: { name: string } }>(
    '/purchase/assets/:name',
    { schema: { hide: true, params: AssetParams } },
    async (request, reply) => {
      const asset = Object.hasOwn(ASSETS, request.params.name) ? ASSETS[request.params.name] : undefined;
      if (!asset) throw notFound('Asset');
      return reply
        .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache', etag: asset.etag })
        .type(asset.type)
        .send(asset.body);
    },
  );

  // The partner's accent colour; the name is the colour, so nothing is read to serve it.
  app.get<{ Params: { name: string } }>(
    '/purchase/themes/:name',
    {
      schema: { hide: true, params: Type.Object({ name: Type.String({ pattern: '^[0-9a-f]{6}\\.css$' }) }) },
    },
    async (request, reply) =>
      reply
        .headers({
          'x-content-type-options': 'nosniff',
          'cache-control': 'public, max-age=31536000, immutable',
        })
        .type('text/css; charset=utf-8')
        .send(themeCss(request.params.name.slice(0, 6))),
  );

  // A form submitted without our script lands here; the card inputs have no name, so nothing of
  // the card arrives, and the body is not read beyond its size limit.
  app.post(
    '/purchase/no-script',
    {
      errorHandler: htmlErrors,
      bodyLimit: 16 * 1024,
      config: { rawBodyTypes: ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'] },
      schema: { hide: true },
    },
    async (_request, reply) => sendPage(reply, 400, noScriptHtml()),
  );

  app.post<{ Body: QuoteBody }>(
    '/purchase/quote',
    {
      schema: {
        hide: true,
        tags,
        summary: 'Checkout page: the price of the amount the buyer picked (unlocked reservations)',
        body: QuoteBody,
        response: { 200: QuoteAnswer, ...errorResponses(400, 404, 429, 503) },
      },
    },
    async (request) => quoteText(await checkoutQuote(ctx, request.body)),
  );

  // The body of POST /v3/debitcard/process/partner, validated and parsed by the same schema and
  // function, so the page and the partner API refuse exactly the same input. The buyer's IP is
  // what reached us, never what the browser claims.
  app.post<{ Body: ProcessBody }>(
    '/purchase/orders',
    {
      preValidation: async (request) => {
        const body = request.body as Record<string, unknown> | undefined;
        if (body && typeof body === 'object' && !Array.isArray(body)) body.ipAddress = request.ip;
      },
      schema: {
        hide: true,
        tags,
        summary:
          'Checkout page: create the wallet order for this reservation (the card goes straight to the order service)',
        body: ProcessBody,
        response: { 200: PlacedOrder, ...errorResponses(400, 404, 429, 503) },
      },
    },
    async (request) => placeOrder(ctx, parseProcessBody(request.body, ctx.clock.nowMs())),
  );

  app.get<{ Params: { orderId: string }; Querystring: OrderQuery }>(
    '/purchase/orders/:orderId',
    {
      schema: {
        hide: true,
        tags,
        summary: 'Checkout page: the order’s progress, the next step and where to go when it ends',
        params: OrderParams,
        querystring: OrderQuery,
        response: { 200: Progress, ...errorResponses(400, 404, 429) },
      },
    },
    async (request) => orderProgress(ctx, { ...request.query, orderId: request.params.orderId }),
  );

  app.post<{ Params: { orderId: string }; Body: CodesBody }>(
    '/purchase/orders/:orderId/codes',
    {
      schema: {
        hide: true,
        tags,
        summary: 'Checkout page: the buyer’s SMS / CARD2FA codes',
        params: OrderParams,
        body: CodesBody,
        response: { 200: CodesAnswer, ...errorResponses(400, 404, 429) },
      },
    },
    async (request) => submitCodes(ctx, { ...request.body, orderId: request.params.orderId }),
  );
};
