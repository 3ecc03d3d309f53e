import type { FastifyRequest } from 'fastify';

/**
 * Every route a token tied to a user may call (docs/contract.md, decision 95), as
 * `METHOD route-template`: the user's own record and documents, payment methods, transfers,
 * wallets and limits. Anything not listed, a route added later included, is refused to such a
 * token: it never acts on the partner's account (keys, accounts, subscriptions, reservations,
 * card orders) nor on another user. The routes listed already confine a user scope to that user
 * (the path's user must be the scope's, wallets and transfers are the user's own).
 */
const USER_TOKEN_ROUTES: ReadonlySet<string> = new Set([
  'GET /v3/users/:userId',
  'POST /v3/users/:userId',
  'GET /v3/users/:userId/onboarding',
  'POST /v3/users/:userId/:fieldId',
  'POST /v2/paymentMethods',
  'GET /v2/paymentMethods',
  'GET /v2/paymentMethod/:paymentMethodId',
  'DELETE /v2/paymentMethod/:paymentMethodId',
  'POST /v2/paymentMethod/:paymentMethodId/attach',
  'POST /v3/transfers',
  'GET /v3/transfers',
  'GET /v3/transfers/:transferId',
  'POST /v3/transfers/:transferId/confirm',
  'POST /v2/transfers',
  'POST /v2/quote',
  'GET /v2/transfer',
  'GET /v2/transfer/:transferId',
  'POST /v2/transfer/:transferId/confirm',
  'POST /v2/wallets',
  'GET /v2/wallets',
  'GET /v2/wallet',
  'GET /v2/wallet/:walletId',
  'POST /v2/wallet/:walletId/update',
  'DELETE /v2/wallet/:walletId',
  'GET /v3/limits',
]);

/** Whether a user-tied token may call this request's route; default deny. */
export function userTokenMayCall(request: FastifyRequest): boolean {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  return USER_TOKEN_ROUTES.has(`${method} ${request.routeOptions.url ?? ''}`);
}
