import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/index.ts';
import { hasIdempotencyKey, runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import {
  completedTransferAnswer,
  createTransferRequest,
  transferListAnswer,
  unconfirmedTransferAnswer,
  withdrawalAnswer,
} from './examples.ts';
import {
  ConfirmBody,
  CreateTransferBody,
  Transfer,
  TransferList,
  TransferListQuery,
  TransferParams,
} from './schemas.ts';
import {
  confirmTransfer,
  createTransfer,
  getTransfer,
  listTransfers,
  needsTransaction,
  type TransfersDeps,
} from './service.ts';
import { checkConfirmBody, prepareTransfer } from './transfer-request.ts';

const tags = ['Transfers'];

export const transfersRoutes: FastifyPluginAsync<{ ctx: TransfersDeps }> = async (app, { ctx }) => {
  app.post<{ Body: CreateTransferBody }>(
    '/v3/transfers',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Create a transfer between accounts, users (masqueradeAs=user:…) and chain addresses',
        description:
          'Sends from the account or user you act as (a user through masqueradeAs=user:US_…, whose TRANSFER scope must be APPROVED); another source answers 403. preview: quote only (PREVIEW). autoConfirm: settles at once (COMPLETED, or PENDING until the chain confirms a withdrawal). Otherwise UNCONFIRMED with the source amount held until confirm or expiresAt (15 minutes). Send sourceAmount or destAmount, not both; fees come on top unless amountIncludesFees. Notable errors: 400 InsufficientFundsException, `validation.unknownDest` (dest outside your partner), `validation.duplicateCustomId`, `validation.invalidAddress`. `notifyUrl` subscribes that URL to this transfer.',
        body: withExample(CreateTransferBody, createTransferRequest),
        response: {
          200: withExample(Transfer, unconfirmedTransferAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const prepared = await prepareTransfer(ctx, scope, request.body);
      // Without an Idempotency-Key, only an autoConfirmed withdrawal or a bank transfer needs a transaction.
      const outcome =
        hasIdempotencyKey(request) || needsTransaction(prepared)
          ? await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
              createTransfer(ctx, scope, prepared, tx),
            )
          : await createTransfer(ctx, scope, prepared);
      return sendIdempotent(reply, outcome);
    },
  );

  app.post<{ Params: { transferId: string }; Body: ConfirmBody }>(
    '/v3/transfers/:transferId/confirm',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Confirm an UNCONFIRMED transfer before its expiresAt',
        description:
          "The payer: the transfer's source, as itself or through masqueradeAs (or the master account); a party that only receives the transfer answers 403 `accessDenied.forbidden`. The body is empty (`{}` or nothing), or names the same `transferId` as the path (docs/contract.md, decision 62). The held amount moves: COMPLETED between accounts and users, PENDING until the chain confirms a withdrawal. Not UNCONFIRMED any more: 400 TransferException `transfer.notUnconfirmed`; past expiresAt: 400 `transfer.expired` (create a new one).",
        params: TransferParams,
        body: withExample(ConfirmBody, {}),
        response: {
          200: withExample(Transfer, completedTransferAnswer),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
        },
      },
    },
    async (request, reply) => {
      checkConfirmBody(request.params.transferId, request.body);
      const scope = scopeOf(request);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        confirmTransfer(ctx, tx, scope, request.params.transferId),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Params: { transferId: string } }>(
    '/v3/transfers/:transferId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Read a transfer (docs/contract.md, Transfers)',
        description:
          'A master account key sees every transfer of its partner; acting as a sub-account or user (masqueradeAs), only the transfers it sends or receives. A chain withdrawal carries its `blockchainTx` once sent; `statusHistories` lists every step. Transfers you cannot see answer 404 like unknown ids.',
        params: TransferParams,
        response: {
          200: withExample(Transfer, withdrawalAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => getTransfer(ctx.db, scopeOf(request), request.params.transferId),
  );

  app.get<{ Querystring: TransferListQuery }>(
    '/v3/transfers',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Transfer history, newest first: offset with limit (or length), at most 100',
        description:
          'Newest first: a master account key lists every transfer of its partner; acting as a sub-account or user (masqueradeAs), the transfers it sends or receives. `recordsTotal` counts them all for paging; `limit` (or Wyre’s `length`) at most 100, default 25.',
        querystring: TransferListQuery,
        response: {
          200: withExample(TransferList, transferListAnswer),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => listTransfers(ctx.db, scopeOf(request), request.query),
  );
};
