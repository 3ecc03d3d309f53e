import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/index.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import { createWallets, prepareWallets } from './create.ts';
import type { WalletsDeps } from './deps.ts';
import { createWalletRequest, createWalletsRequest, updateWalletRequest, walletAnswer } from './examples.ts';
import {
  CreateWalletBody,
  CreateWalletsBody,
  Deleted,
  UpdateWalletBody,
  Wallet,
  WalletBatch,
  WalletList,
  WalletListQuery,
  WalletNameQuery,
  WalletParams,
} from './schemas.ts';
import {
  deleteWallet,
  getWallet,
  getWalletByName,
  listWallets,
  prepareWalletUpdate,
  updateWalletFields,
} from './service.ts';

const tags = ['Wallets'];
const OWNER_RULE =
  'The wallet belongs to the party you act as: your account, a sub-account (masqueradeAs=AC_…) or a user (masqueradeAs=user:US_…). A master account acting as itself reaches every wallet of its partner; any other party only its own, and another wallet answers 404 as an unknown id does.';

export const walletRoutes: FastifyPluginAsync<{ ctx: WalletsDeps }> = async (app, { ctx }) => {
  app.post<{ Body: CreateWalletBody }>(
    '/v2/wallets',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Create a wallet: a named custodial balance (wallet:WA_…)',
        description: `${OWNER_RULE} \`name\` is unique per owner (400 \`validation.walletNameTaken\`); \`type\` is DEFAULT, ENTERPRISE or SAVINGS. The wallet gets a deposit address on every chain the service runs, and is a transfer source and dest as \`wallet:WA_…\`.`,
        body: withExample(CreateWalletBody, createWalletRequest),
        response: { 200: withExample(Wallet, walletAnswer), ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const prepared = await prepareWallets(ctx, [request.body], false);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), async (tx) => {
        const [wallet] = await createWallets(ctx, tx, scope, prepared);
        return wallet!;
      });
      return sendIdempotent(reply, outcome);
    },
  );

  app.post<{ Body: CreateWalletsBody }>(
    '/v2/wallets/batch',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Create up to 100 wallets at once, all or nothing',
        description: `${OWNER_RULE} Every wallet is checked as POST /v2/wallets checks one; if any is refused, none is created and the 400 answer names the first in \`problematicField\` and lists every refused one in \`errors\` (\`index\`, \`problematicField\`, \`errorCode\`, \`message\`). Answers the wallets in the order sent.`,
        body: withExample(CreateWalletsBody, createWalletsRequest),
        response: {
          200: withExample(WalletBatch, [walletAnswer]),
          ...errorResponses(400, 401, 403, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const prepared = await prepareWallets(ctx, request.body.wallets, true);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        createWallets(ctx, tx, scope, prepared),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Params: { walletId: string } }>(
    '/v2/wallet/:walletId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Read a wallet with its balances and deposit addresses',
        description: `${OWNER_RULE} \`balances\` is what the wallet can spend now (its availableBalances); \`totalBalances\` includes amounts held by unconfirmed transfers.`,
        params: WalletParams,
        response: { 200: withExample(Wallet, walletAnswer), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => getWallet(ctx.db, scopeOf(request), request.params.walletId),
  );

  app.get<{ Querystring: { name: string } }>(
    '/v2/wallet',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Find your wallet by its name',
        description:
          'The wallet of this name owned by the party you act as (names are unique per owner); none answers 404.',
        querystring: WalletNameQuery,
        response: { 200: withExample(Wallet, walletAnswer), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => getWalletByName(ctx.db, scopeOf(request), request.query.name),
  );

  app.post<{ Params: { walletId: string }; Body: UpdateWalletBody }>(
    '/v2/wallet/:walletId/update',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Change a wallet’s name, callbackUrl, notes or verificationData',
        description: `${OWNER_RULE} Fields sent change (null clears callbackUrl, notes or verificationData); fields left out stay. A new name must be free among the owner’s wallets.`,
        params: WalletParams,
        body: withExample(UpdateWalletBody, updateWalletRequest),
        response: {
          200: withExample(Wallet, walletAnswer),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const update = await prepareWalletUpdate(ctx, request.body ?? {});
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        updateWalletFields(tx, scope, request.params.walletId, update),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.delete<{ Params: { walletId: string } }>(
    '/v2/wallet/:walletId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Delete an empty wallet',
        description: `${OWNER_RULE} A wallet holding any balance (held amounts included) is refused with 400 \`validation.walletHasBalance\`: transfer its funds out first. Answers an empty object; the wallet is gone from reads, lists and transfers.`,
        params: WalletParams,
        response: { 200: withExample(Deleted, {}), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        deleteWallet(ctx, tx, scope, request.params.walletId),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Querystring: WalletListQuery }>(
    '/v2/wallets',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'List wallets, oldest first: offset with limit (at most 100)',
        description: `${OWNER_RULE} Answers \`{data: [...]}\`; \`limit\` at most 100, default 25.`,
        querystring: WalletListQuery,
        response: {
          200: withExample(WalletList, { data: [walletAnswer] }),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => listWallets(ctx.db, scopeOf(request), request.query),
  );
};
