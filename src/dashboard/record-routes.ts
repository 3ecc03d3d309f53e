import type { FastifyPluginAsync } from 'fastify';
import { partnerDeliveries, partnerDelivery } from '../callbacks/index.ts';
import { balancesOf } from '../ledger/index.ts';
import { getTransfer, transfersAfter } from '../transfers/index.ts';
import { ownedUser, ownedUsersAfter } from '../users/index.ts';
import { readFullOrder, walletOrdersAfter } from '../wallet-orders/index.ts';
import { walletsAfter } from '../wallets/index.ts';
import { html } from '../web/index.ts';
import type { DashboardDeps } from './deps.ts';
import { dashboardErrors } from './errors.ts';
import { accessOf } from './guard.ts';
import { AfterQuery, PAGE_SIZE, pageOf, sendDashboardPage } from './http.ts';
import { balancesView, deliveriesList, deliveryDetail } from './pages/money.ts';
import {
  orderDetail,
  ordersList,
  transferDetail,
  transfersList,
  userDetail,
  usersList,
} from './pages/records.ts';

type ListRequest = { Querystring: { after?: string } };
type OneRequest = { Params: { id: string } };
const IdParams = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
  required: ['id'],
} as const;
const list = { schema: { hide: true, querystring: AfterQuery } };
const one = { schema: { hide: true, params: IdParams } };

/**
 * What the partner reads: each page asks the service the API's own route asks, with the scope the
 * API gives the signed-in key (docs/contract.md, decision 161), so a record the API would not show
 * that key is not found here either. Lists are keyset pages of PAGE_SIZE.
 */
export const dashboardRecordRoutes: FastifyPluginAsync<{ ctx: DashboardDeps }> = async (app, { ctx }) => {
  app.get<ListRequest>('/dashboard/orders', list, async (request, reply) => {
    const { scope } = accessOf(request);
    const { shown, after } = pageOf(await walletOrdersAfter(ctx, scope, request.query.after, PAGE_SIZE + 1));
    return sendDashboardPage(request, reply, {
      current: '/dashboard/orders',
      title: 'Orders',
      main: ordersList(shown, after),
    });
  });

  app.get<OneRequest>('/dashboard/orders/:id', one, async (request, reply) => {
    const order = await readFullOrder(ctx, request.params.id, accessOf(request).scope);
    return sendDashboardPage(request, reply, {
      current: '/dashboard/orders',
      title: `Order ${order.id}`,
      main: orderDetail(order),
    });
  });

  app.get<ListRequest>('/dashboard/transfers', list, async (request, reply) => {
    const { scope } = accessOf(request);
    const { shown, after } = pageOf(await transfersAfter(ctx.db, scope, request.query.after, PAGE_SIZE + 1));
    return sendDashboardPage(request, reply, {
      current: '/dashboard/transfers',
      title: 'Transfers',
      main: transfersList(shown, after),
    });
  });

  app.get<OneRequest>('/dashboard/transfers/:id', one, async (request, reply) => {
    const transfer = await getTransfer(ctx.db, accessOf(request).scope, request.params.id);
    return sendDashboardPage(request, reply, {
      current: '/dashboard/transfers',
      title: `Transfer ${transfer.id}`,
      main: transferDetail(transfer),
    });
  });

  app.get<ListRequest>('/dashboard/users', list, async (request, reply) => {
    const { scope } = accessOf(request);
    const { shown, after } = pageOf(await ownedUsersAfter(ctx.db, scope, request.query.after, PAGE_SIZE + 1));
    return sendDashboardPage(request, reply, {
      current: '/dashboard/users',
      title: 'Users',
      main: usersList(shown, after),
    });
  });

  app.get<OneRequest>('/dashboard/users/:id', one, async (request, reply) => {
    const user = await ownedUser(ctx.db, accessOf(request).scope, request.params.id);
    if (!user) throw dashboardErrors.notFound('User');
    return sendDashboardPage(request, reply, {
      current: '/dashboard/users',
      title: `User ${user.id}`,
      main: userDetail(user),
    });
  });

  app.get<ListRequest>('/dashboard/balances', list, async (request, reply) => {
    const { scope } = accessOf(request);
    const [own, wallets] = await Promise.all([
      balancesOf(ctx.db, `account:${scope.accountId}`),
      walletsAfter(ctx.db, scope, request.query.after, PAGE_SIZE + 1),
    ]);
    const { shown, after } = pageOf(wallets);
    return sendDashboardPage(request, reply, {
      current: '/dashboard/balances',
      title: 'Balances',
      main: balancesView(own, shown, after),
    });
  });

  // Deliveries are the partner's (one signing secret, one master): a master key's, as the API's signing secret is.
  app.get<ListRequest>('/dashboard/callbacks', list, async (request, reply) => {
    const { scope } = masterOnly(request);
    const { shown, after } = pageOf(
      await partnerDeliveries(ctx, scope.partnerId, request.query.after, PAGE_SIZE + 1),
    );
    return sendDashboardPage(request, reply, {
      current: '/dashboard/callbacks',
      title: 'Callback deliveries',
      main: deliveriesList(shown, after),
    });
  });

  app.get<OneRequest>('/dashboard/callbacks/:id', one, async (request, reply) => {
    const delivery = await partnerDelivery(ctx, masterOnly(request).scope.partnerId, request.params.id);
    return sendDashboardPage(request, reply, {
      current: '/dashboard/callbacks',
      title: `Callback ${delivery.id}`,
      main: html`${deliveryDetail(delivery)}`,
    });
  });
};

/** The signed-in key is its partner's master account's own, as GET /v3/subscriptions/signingSecret requires. */
export function masterOnly(request: Parameters<typeof accessOf>[0]) {
  const access = accessOf(request);
  if (access.scope.accountId !== access.scope.partnerId) throw dashboardErrors.masterOnly();
  return access;
}
