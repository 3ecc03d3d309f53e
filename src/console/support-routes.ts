import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { resendCallback } from '../callbacks/index.ts';
import type { UsersDeps } from '../users/index.ts';
import type { SafeHtml } from '../web/index.ts';
import { formField } from '../web/sessions/index.ts';
import { accountMain } from './account-page.ts';
import { callbackMain, callbacksMain } from './callback-pages.ts';
import { callbackDetail, callbackPage } from './callbacks.ts';
import { consoleDocument } from './documents.ts';
import { consoleErrors } from './errors.ts';
import { consoleAct, consoleGuard } from './guard.ts';
import { setupConsoleRoutes } from './kit.ts';
import { consolePage, sendConsolePage } from './layout.ts';
import { orderMain } from './order-page.ts';
import { queueMain, reviewMain } from './review-pages.ts';
import { type ConsoleDecision, decide, decisionOf, reviewModel, reviewQueue } from './reviews.ts';
import { searchConsole } from './search.ts';
import { searchMain } from './search-page.ts';
import { accountTimeline, orderTimeline, transferTimeline, userTimeline } from './timelines.ts';
import { transferMain } from './transfer-page.ts';
import { userMain } from './user-page.ts';

/**
 * The console's support pages (docs/contract.md, decisions 145 to 151): search, the timelines of
 * accounts, users, orders and transfers, the KYC review queue with its documents, and callback
 * deliveries. Reading needs `support`; KYC decisions `reviewer`; a resend `admin`.
 */

const text = (maxLength: number) => ({ type: 'string', maxLength }) as const;
const IdParams = { type: 'object', properties: { id: text(64) }, required: ['id'] } as const;
const ReviewParams = {
  type: 'object',
  properties: {
    userId: text(64),
    scope: text(32),
    decision: { type: 'string', enum: ['approve', 'return', 'close'] },
  },
  required: ['userId', 'scope', 'decision'],
} as const;
const query = (properties: Record<string, unknown>) => ({ type: 'object', properties }) as const;

export const consoleSupportRoutes: FastifyPluginAsync<{ ctx: UsersDeps }> = async (app, { ctx }) => {
  setupConsoleRoutes(app, ctx);
  const support = consoleGuard(ctx, 'support');
  const show = (reply: FastifyReply, title: string, main: SafeHtml, current?: string) =>
    sendConsolePage(reply, 200, consolePage(reply.request.webSession!, title, main, current));

  app.get<{ Querystring: { q?: string } }>(
    '/console/search',
    { schema: { hide: true, querystring: query({ q: text(1024) }) }, preHandler: support },
    async (request, reply) => {
      const q = request.query.q?.trim() ?? '';
      const results = q === '' ? undefined : await searchConsole(ctx.db, q);
      return show(reply, 'Search', searchMain(q, results), '/console/search');
    },
  );

  app.get<{ Params: { id: string }; Querystring: { users?: string; orders?: string; transfers?: string } }>(
    '/console/accounts/:id',
    {
      schema: {
        hide: true,
        params: IdParams,
        querystring: query({ users: text(64), orders: text(64), transfers: text(64) }),
      },
      preHandler: support,
    },
    async (request, reply) => {
      const timeline = await accountTimeline(ctx.db, request.params.id, request.query);
      if (!timeline) throw consoleErrors.notFound('Account');
      return show(reply, `Account ${timeline.account.id}`, accountMain(timeline, request.query));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/console/users/:id',
    { schema: { hide: true, params: IdParams }, preHandler: support },
    async (request, reply) => {
      const timeline = await userTimeline(ctx.db, request.params.id);
      if (!timeline) throw consoleErrors.notFound('User');
      return show(reply, `User ${timeline.user.id}`, userMain(timeline));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/console/orders/:id',
    { schema: { hide: true, params: IdParams }, preHandler: support },
    async (request, reply) => {
      const timeline = await orderTimeline(ctx.db, request.params.id);
      if (!timeline) throw consoleErrors.notFound('Order');
      return show(reply, `Order ${timeline.order.id}`, orderMain(timeline));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/console/transfers/:id',
    { schema: { hide: true, params: IdParams }, preHandler: support },
    async (request, reply) => {
      const timeline = await transferTimeline(ctx.db, request.params.id);
      if (!timeline) throw consoleErrors.notFound('Transfer');
      return show(reply, `Transfer ${timeline.transfer.id}`, transferMain(timeline));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/console/documents/:id',
    { schema: { hide: true, params: IdParams }, preHandler: support },
    async (request, reply) => {
      const document = await consoleDocument(ctx, request.params.id);
      return reply.code(200).headers(document.headers).type(document.mediaType).send(document.bytes);
    },
  );

  app.get<{ Querystring: { after?: string } }>(
    '/console/reviews',
    { schema: { hide: true, querystring: query({ after: text(64) }) }, preHandler: support },
    async (request, reply) => {
      const page = await reviewQueue(ctx.db, request.query.after);
      return show(reply, 'KYC reviews', queueMain(page.rows, page.next), '/console/reviews');
    },
  );

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    '/console/reviews/:id',
    { schema: { hide: true, params: IdParams, querystring: query({ done: text(16) }) }, preHandler: support },
    async (request, reply) => {
      const model = await reviewModel(ctx.db, request.params.id);
      if (!model) throw consoleErrors.notFound('User');
      const main = reviewMain(request.webSession!, model, request.query.done);
      return show(reply, `Review ${model.user.id}`, main, '/console/reviews');
    },
  );

  app.post<{ Params: { userId: string; scope: string; decision: ConsoleDecision } }>(
    '/console/reviews/:userId/:scope/:decision',
    { schema: { hide: true, params: ReviewParams }, preHandler: consoleGuard(ctx, 'reviewer') },
    async (request, reply) => {
      const { userId, scope, decision } = request.params;
      const input = decisionOf(
        decision,
        scope,
        formField(request.body, 'field'),
        formField(request.body, 'reason'),
      );
      await decide(ctx, consoleAct(request), userId, scope, input);
      return reply.redirect(`/console/reviews/${encodeURIComponent(userId)}?done=${decision}`, 303);
    },
  );

  app.get<{ Querystring: { account?: string; status?: string; after?: string } }>(
    '/console/callbacks',
    {
      schema: {
        hide: true,
        querystring: query({
          account: text(64),
          status: { type: 'string', enum: ['', 'FAILED', 'PENDING', 'DELIVERED'] },
          after: text(64),
        }),
      },
      preHandler: support,
    },
    async (request, reply) => {
      const filter = {
        partnerId: request.query.account?.trim() || undefined,
        status: (request.query.status || undefined) as 'FAILED' | 'PENDING' | 'DELIVERED' | undefined,
      };
      const page = await callbackPage(ctx.db, filter, request.query.after);
      return show(reply, 'Callbacks', callbacksMain(filter, page.rows, page.next), '/console/callbacks');
    },
  );

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    '/console/callbacks/:id',
    { schema: { hide: true, params: IdParams, querystring: query({ done: text(16) }) }, preHandler: support },
    async (request, reply) => {
      const callback = await callbackDetail(ctx.db, request.params.id);
      if (!callback) throw consoleErrors.notFound('Callback delivery');
      const main = callbackMain(request.webSession!, callback, request.query.done === 'resent');
      return show(reply, `Delivery ${callback.id}`, main, '/console/callbacks');
    },
  );

  // A resend is a change made on a partner's behalf, so it is an admin's (decision 151).
  app.post<{ Params: { id: string } }>(
    '/console/callbacks/:id/resend',
    { schema: { hide: true, params: IdParams }, preHandler: consoleGuard(ctx, 'admin') },
    async (request, reply) => {
      await resendCallback(ctx, consoleAct(request), request.params.id);
      return reply.redirect(`/console/callbacks/${encodeURIComponent(request.params.id)}?done=resent`, 303);
    },
  );
};
