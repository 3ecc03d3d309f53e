import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  createApiKey,
  deleteApiKey,
  hasWebhookSecret,
  pageAccountKeys,
  rotateWebhookSecret,
} from '../identity/index.ts';
import { reserve, storeReservation } from '../orders/index.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { ApiError } from '../platform/errors.ts';
import { html } from '../web/index.ts';
import { endSession } from '../web/sessions/index.ts';
import type { DashboardDeps } from './deps.ts';
import { dashboardErrors } from './errors.ts';
import { accessOf, SIGN_IN_PATH } from './guard.ts';
import { AfterQuery, formField, PAGE_SIZE, pageOf, sendDashboardPage } from './http.ts';
import { notice } from './layout.ts';
import { keysView, type NewSecret, type PurchaseForm, purchaseView, webhookView } from './pages/manage.ts';
import { masterOnly } from './record-routes.ts';

const hide = { hide: true };
const KEYS = '/dashboard/api-keys';
const WEBHOOK = '/dashboard/webhook-secret';
const PURCHASE = '/dashboard/test-purchase';

/** A refusal the form can show above itself: an expected ApiError; anything else is the error page's. */
function expected(error: unknown): ApiError {
  if (error instanceof ApiError && error.status < 500) return error;
  throw error;
}

/**
 * What the partner changes: its keys (through the API's own createApiKey and deleteApiKey, so a
 * key reaches what it reaches there), its callback signing secret, a sandbox test purchase.
 * Every post has passed the guard: this session's form, from this site, not a READONLY key.
 */
export const dashboardManageRoutes: FastifyPluginAsync<{ ctx: DashboardDeps }> = async (app, { ctx }) => {
  const keysPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { created?: NewSecret; error?: ApiError } = {},
  ) => {
    const { session, scope } = accessOf(request);
    const query = request.query as { after?: string } | undefined;
    const after = extra.created || extra.error ? undefined : query?.after;
    const rows = await pageAccountKeys(ctx.db, scope.accountId, after, PAGE_SIZE + 1);
    const { shown, after: next } = pageOf(rows.map((row) => ({ ...row, id: row.api_key })));
    return sendDashboardPage(request, reply, {
      current: KEYS,
      title: 'API keys',
      status: extra.error?.status ?? 200,
      main: html`${notice('error', extra.error?.message)}${keysView(session, shown, next, extra.created)}`,
    });
  };

  app.get<{ Querystring: { after?: string } }>(
    KEYS,
    { schema: { ...hide, querystring: AfterQuery } },
    (request, reply) => keysPage(request, reply),
  );

  app.post(KEYS, { schema: hide }, async (request, reply) => {
    const { scope } = accessOf(request);
    const type = formField(request.body, 'type') === 'READONLY' ? 'READONLY' : 'FULL';
    const whitelist = formField(request.body, 'ipWhitelist')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    try {
      const created = await withTransaction(ctx.db, (tx) =>
        createApiKey(ctx, tx, scope, {
          desc: formField(request.body, 'desc', 200),
          type,
          ipWhitelist: whitelist,
        }),
      );
      return keysPage(request, reply, { created: { apiKey: created.apiKey, secretKey: created.secretKey } });
    } catch (error) {
      return keysPage(request, reply, { error: expected(error) });
    }
  });

  /**
   * Revoking the session's own key asks for a ticked confirmation, then signs out: the session
   * rests on that key (docs/contract.md, decision 164).
   */
  app.post<{ Params: { apiKey: string } }>(
    `${KEYS}/:apiKey/revoke`,
    { schema: hide },
    async (request, reply) => {
      const { session, caller } = accessOf(request);
      const own = request.params.apiKey === session.apiKey;
      try {
        if (own && formField(request.body, 'confirm') !== 'yes') throw dashboardErrors.confirmOwnKey();
        await deleteApiKey(ctx, caller, request.params.apiKey);
      } catch (error) {
        return keysPage(request, reply, { error: expected(error) });
      }
      if (!own) return reply.redirect(KEYS, 303);
      await endSession(ctx, request, reply, 'dashboard');
      return reply.redirect(SIGN_IN_PATH, 303);
    },
  );

  app.get(WEBHOOK, { schema: hide }, async (request, reply) => {
    const { session, scope } = masterOnly(request);
    const isSet = await hasWebhookSecret(ctx.db, scope.partnerId);
    return sendDashboardPage(request, reply, {
      current: WEBHOOK,
      title: 'Webhook signing secret',
      main: webhookView(session, isSet),
    });
  });

  app.post(WEBHOOK, { schema: hide }, async (request, reply) => {
    const { session, scope } = masterOnly(request);
    const secret = await rotateWebhookSecret(ctx, ctx.db, scope.partnerId);
    return sendDashboardPage(request, reply, {
      current: WEBHOOK,
      title: 'Webhook signing secret',
      main: webhookView(session, true, secret),
    });
  });

  app.post('/dashboard/sign-out', { schema: hide }, async (request, reply) => {
    await endSession(ctx, request, reply, 'dashboard');
    return reply.redirect(SIGN_IN_PATH, 303);
  });

  // Production has no test purchase: the routes do not exist there (the nav leaves the entry out).
  if (ctx.config.env !== 'sandbox') return;
  const blank: PurchaseForm = { sourceAmount: '20', destCurrency: 'ETH', dest: '' };

  app.get(PURCHASE, { schema: hide }, async (request, reply) =>
    sendDashboardPage(request, reply, {
      current: PURCHASE,
      title: 'Test purchase',
      main: purchaseView(accessOf(request).session, blank),
    }),
  );

  app.post(PURCHASE, { schema: hide }, async (request, reply) => {
    const { session, scope } = accessOf(request);
    const form: PurchaseForm = {
      sourceAmount: formField(request.body, 'sourceAmount', 64),
      destCurrency: formField(request.body, 'destCurrency', 5).toUpperCase(),
      dest: formField(request.body, 'dest', 200),
    };
    const show = (main: ReturnType<typeof html>, status = 200) =>
      sendDashboardPage(request, reply, { current: PURCHASE, title: 'Test purchase', main, status });
    try {
      if (!/^[A-Z]{3,5}$/.test(form.destCurrency))
        throw new ApiError(
          'ValidationException',
          'validation.invalidCurrency',
          'Name the currency to buy by its code, such as ETH.',
        );
      // The body POST /v3/orders/reserve would be sent: a rate-locked card purchase for the signed-in account.
      const link = await reserve(
        ctx,
        scope,
        {
          sourceAmount: form.sourceAmount,
          amountIncludeFees: false,
          paymentMethod: 'debit-card',
          sourceCurrency: 'USD',
          destCurrency: form.destCurrency,
          dest: form.dest,
          referrerAccountId: scope.accountId,
          country: 'US',
        },
        (prepared) => storeReservation(ctx, undefined, scope, prepared),
      );
      return show(purchaseView(session, form, link));
    } catch (error) {
      const refusal = expected(error);
      return show(html`${notice('error', refusal.message)}${purchaseView(session, form)}`, refusal.status);
    }
  });
};
