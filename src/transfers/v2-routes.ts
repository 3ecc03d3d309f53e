import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/index.ts';
import { hasIdempotencyKey, runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import {
  completedTransferAnswer,
  previewTransferAnswer,
  trackingAnswer,
  unconfirmedTransferAnswer,
  v2CreateTransferRequest,
} from './examples.ts';
import { ConfirmBody, Transfer, TransferParams } from './schemas.ts';
import {
  confirmTransfer,
  createTransfer,
  getTransfer,
  getTransferByCustomId,
  needsTransaction,
  type TransfersDeps,
  trackTransfer,
} from './service.ts';
import { prepareTransfer } from './transfer-request.ts';
import { CustomIdQuery, Tracking, V2CreateTransferBody } from './v2-schemas.ts';

const tags = ['Transfers'];

/**
 * The v2 paths of transfers (docs/contract.md, "Wallets and v2 transfers"): the v3 services under
 * Wyre's older names, so v2 clients work unchanged.
 */
export const transfersV2Routes: FastifyPluginAsync<{ ctx: TransfersDeps }> = async (app, { ctx }) => {
  /** POST /v3/transfers' handling, with v2's `callbackUrl` read as `notifyUrl`. */
  const create = async (request: FastifyRequest, reply: FastifyReply, body: V2CreateTransferBody) => {
    const scope = scopeOf(request);
    const { callbackUrl, ...rest } = body;
    const notifyUrl = rest.notifyUrl ?? callbackUrl;
    const prepared = await prepareTransfer(ctx, scope, { ...rest, ...(notifyUrl ? { notifyUrl } : {}) });
    const outcome =
      hasIdempotencyKey(request) || needsTransaction(prepared)
        ? await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
            createTransfer(ctx, scope, prepared, tx),
          )
        : await createTransfer(ctx, scope, prepared);
    return sendIdempotent(reply, outcome);
  };

  app.post<{ Body: V2CreateTransferBody }>(
    '/v2/transfers',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Create a transfer (v2 name of POST /v3/transfers; callbackUrl = notifyUrl)',
        description:
          'POST /v3/transfers under its v2 path: the same body, rules and answer, with `callbackUrl` accepted as v2’s name of `notifyUrl`. `source` defaults to the party you act as; `wallet:WA_…` is a source (its owner or the master account draws on it) and a dest.',
        body: withExample(V2CreateTransferBody, v2CreateTransferRequest),
        response: {
          200: withExample(Transfer, unconfirmedTransferAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429, 503),
        },
      },
    },
    (request, reply) => create(request, reply, request.body),
  );

  app.post<{ Body: V2CreateTransferBody }>(
    '/v2/quote',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Quote a transfer: a PREVIEW transfer that moves nothing',
        description:
          'The body of POST /v2/transfers; the answer is the transfer as it would be, with status PREVIEW (`preview` is always true here): its amounts, fees and exchange rate. Nothing is held or moved and no callback is sent; create the transfer to go ahead.',
        body: withExample(V2CreateTransferBody, v2CreateTransferRequest),
        response: {
          200: withExample(Transfer, previewTransferAnswer),
          ...errorResponses(400, 401, 403, 409, 422, 429, 503),
        },
      },
    },
    (request, reply) => create(request, reply, { ...request.body, preview: true }),
  );

  app.get<{ Params: { transferId: string } }>(
    '/v2/transfer/:transferId',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Read a transfer (v2 name of GET /v3/transfers/{transferId})',
        description:
          'GET /v3/transfers/{transferId} under its v2 path: a master account key sees every transfer of its partner, a sub-account or user (masqueradeAs) those it sends or receives; others answer 404.',
        params: TransferParams,
        response: {
          200: withExample(Transfer, completedTransferAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => getTransfer(ctx.db, scopeOf(request), request.params.transferId),
  );

  app.get<{ Querystring: { customId: string } }>(
    '/v2/transfer',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Find a transfer by its customId',
        description:
          'The transfer you created with this `customId` (unique among your transfers; previews are not kept by it), if you can see it as GET /v2/transfer/{transferId} would; otherwise 404.',
        querystring: CustomIdQuery,
        response: {
          200: withExample(Transfer, completedTransferAnswer),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => getTransferByCustomId(ctx.db, scopeOf(request), request.query.customId),
  );

  app.post<{ Params: { transferId: string } }>(
    '/v2/transfer/:transferId/confirm',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Confirm an UNCONFIRMED transfer (v2 name of POST /v3/transfers/{transferId}/confirm)',
        description:
          'POST /v3/transfers/{transferId}/confirm under its v2 path: only the payer (the source as itself or through masqueradeAs, a wallet’s owner, or the master account) confirms, before expiresAt.',
        params: TransferParams,
        body: withExample(ConfirmBody, {}),
        response: {
          200: withExample(Transfer, completedTransferAnswer),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
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
    '/v2/transfer/:transferId/track',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Track a transfer without credentials',
        description:
          'No credentials: whoever holds the transfer id (a buyer’s tracking link) sees its amounts, fees, status and timeline, and nothing personal: no names, e-mails, phone numbers, postal addresses or owner. Parties show as their SRN’s type and id (`Wallet WA_…`, `Walletorderholding WO_…`). Previews and unknown ids answer 404.',
        params: TransferParams,
        response: { 200: withExample(Tracking, trackingAnswer), ...errorResponses(400, 404, 429) },
      },
    },
    async (request) => trackTransfer(ctx.db, request.params.transferId),
  );
};
