import type { FastifyPluginAsync } from 'fastify';
import type { ChainsDeps } from '../chains/index.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import { scopeOf } from './access.ts';
import { getAccount } from './accounts-service.ts';
import { LegacyAccount, LegacyAccountParams, legacyAccountAnswer } from './legacy-account-schemas.ts';
import { legacyAccountView } from './legacy-account-view.ts';

const tags = ['Accounts'];
const SHAPE =
  'Wyre’s legacy v2 account, built from what the v3 Account holds: profile from the profile fields, one `ledgers` entry per balance (`balance` available, `pendingBalance` held). Fields Rampart keeps no data for (logins, sessions, referral and push details, notification settings, business profile, limits buckets) are null or empty lists.';

/** GET /v2/account and /v2/account/{id} (docs/contract.md, decision 38): the v3 read, in v2's shape. */
export const legacyAccountRoutes: FastifyPluginAsync<{ ctx: ChainsDeps }> = async (app, { ctx }) => {
  app.get(
    '/v2/account',
    {
      config: { withOwnBalances: true },
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'The account you act as, in the legacy v2 shape',
        description: `Your account, or the sub-account you masquerade as. ${SHAPE}`,
        response: {
          200: withExample(LegacyAccount, legacyAccountAnswer),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      return legacyAccountView(await getAccount(ctx, scope, scope.accountId));
    },
  );

  app.get<{ Params: { accountId: string } }>(
    '/v2/account/:accountId',
    {
      config: { withOwnBalances: true },
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'An account in the legacy v2 shape (yours, or your sub-account)',
        description: `Reaches what GET /v3/accounts/{accountId} reaches; any other account answers 404. ${SHAPE}`,
        params: LegacyAccountParams,
        response: {
          200: withExample(LegacyAccount, legacyAccountAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => legacyAccountView(await getAccount(ctx, scopeOf(request), request.params.accountId)),
  );
};
