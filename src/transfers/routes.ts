import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/access.ts';
import type { AppContext } from '../platform/context.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY } from '../platform/http/openapi.ts';
import {
  ConfirmBody,
  CreateTransferBody,
  Transfer,
  TransferList,
  TransferListQuery,
  TransferParams,
} from './schemas.ts';
import { confirmTransfer, createTransfer, getTransfer, listTransfers } from './service.ts';
import { prepareTransfer } from './transfer-request.ts';

const tags = ['Transfers'];

export const transfersRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: CreateTransferBody }>(
    '/v3/transfers',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Create a transfer between accounts, users (masqueradeAs=user:…) and chain addresses',
        description:
          'preview: quote only (PREVIEW). autoConfirm: settles at once (COMPLETED, or PENDING until the chain confirms a withdrawal). Otherwise UNCONFIRMED with the source amount held until confirm or expiresAt.',
        body: CreateTransferBody,
        response: { 200: Transfer, ...errorResponses(400, 401, 403, 409, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const prepared = await prepareTransfer(ctx, scope, request.body);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        createTransfer(ctx, tx, scope, prepared),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.post<{ Params: { transferId: string } }>(
    '/v3/transfers/:transferId/confirm',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Confirm an UNCONFIRMED transfer before its expiresAt',
        params: TransferParams,
        body: ConfirmBody,
        response: { 200: Transfer, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
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
        summary: 'Read a transfer (spec §4.6)',
        params: TransferParams,
        response: { 200: Transfer, ...errorResponses(400, 401, 403, 404, 429) },
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
        querystring: TransferListQuery,
        response: { 200: TransferList, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => listTransfers(ctx.db, scopeOf(request), request.query),
  );
};
