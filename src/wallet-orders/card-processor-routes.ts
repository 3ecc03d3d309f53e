import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import {
  ConnectorSignatureError,
  cardErrors,
  findPayment,
  type ProcessorEvent,
  updatePayment,
} from '../cards/index.ts';
import { ApiError } from '../platform/errors.ts';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import { PAGE_SECURITY_HEADERS } from '../web/index.ts';
import { cardPaymentsNeedingAttention } from './attention.ts';
import { onProcessorEvent, type Resolution, returnFromChallenge } from './card-payments.ts';
import type { WalletOrdersDeps } from './deps.ts';
import {
  CardPaymentsAttention,
  cardPaymentsAttentionExample,
  RESERVATION_REDIRECT,
  ThreeDsPageParams,
  ThreeDsPageQuery,
} from './schemas.ts';
import { threeDsRedirectTarget } from './service.ts';
import { findOrder } from './store.ts';
import { threeDsCapabilityValid } from './three-ds-capability.ts';
import { safeReturnPath, threeDsOutcomeHtml } from './three-ds-page.ts';

/**
 * What a processor appends to the return URL (Stripe: `payment_intent`, its client secret;
 * Checkout.com: `cko-session-id`) is not read: the payment is retrieved by the reference Rampart
 * recorded, so nothing the buyer's browser carries decides the step.
 */
const ReturnQuery = {
  type: 'object',
  properties: Object.fromEntries(
    ['payment_intent', 'payment_intent_client_secret', 'redirect_status', 'cko-session-id'].map((name) => [
      name,
      { type: 'string', maxLength: 512 },
    ]),
  ),
} as const;

/** The largest processor event taken: Stripe's are a few kilobytes. */
const EVENT_BODY_LIMIT = 256 * 1024;

/**
 * A remote card processor's routes (docs/contract.md, "Card processors"), mounted only when one
 * is configured (but the operator's list, served always: empty without one):
 * - `GET /card-processor/3ds/{orderId}/{token}`: `authorization3dsUrl` (decision 103). It keeps
 *   where the buyer goes afterwards (the with-redirection URL's reservation URLs, or a same-origin
 *   `returnUrl`) and sends the buyer to the issuer's challenge;
 * - `GET /card-processor/return/{orderId}/{token}`: where the issuer sends the buyer back; it
 *   asks the processor for the payment, resolves the step, and sends the buyer on;
 * - `POST /v3/card-processor/{name}/events`: the processor's events (decision 107), verified
 *   over the raw bytes by the connector.
 * - `GET /operator/v1/card-payments/attention`: what the operator decides (decisions 102, 104).
 * The path's token (HMAC of the order id) is the capability of the two pages.
 */
export const cardProcessorRoutes: FastifyPluginAsync<{ ctx: WalletOrdersDeps }> = async (app, { ctx }) => {
  app.get(
    '/operator/v1/card-payments/attention',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'Card payments a remote processor left for the operator to decide',
        response: {
          200: withExample(CardPaymentsAttention, cardPaymentsAttentionExample),
          ...errorResponses(401),
        },
        description:
          'Operator token only; with the sandbox or no processor, both lists are empty. `payments`: authorizations the processor never confirmed within the status poll’s bound (the order stays RUNNING_CHECKS; decide it from the processor’s dashboard). `operations`: captures, voids and refunds the processor refused, with its words; a refused capture is booked to `house:card-losses`.',
      },
    },
    async () => cardPaymentsNeedingAttention(ctx),
  );
  const connector = ctx.cardProcessor.remote;
  if (!connector) return;
  const notFound = () => new ApiError('NotFoundException', 'notFound', 'Not found.');
  const page = (reply: FastifyReply, body: string) =>
    reply.code(200).headers(PAGE_SECURITY_HEADERS).type('text/html; charset=utf-8').send(body);
  const sendOn = (reply: FastifyReply, location: string) =>
    reply.code(303).headers(PAGE_SECURITY_HEADERS).header('location', location).send();

  /** Where the buyer goes once the step is decided: as the with-redirection flow does for the sandbox. */
  const onward = async (reply: FastifyReply, orderId: string, outcome: string) => {
    const payment = await findPayment(ctx.db, orderId);
    const choice = payment?.three_ds_onward ?? null;
    if (choice === RESERVATION_REDIRECT) {
      const target = await threeDsRedirectTarget(ctx, orderId);
      if (target) return sendOn(reply, target);
    } else if (choice !== null) {
      const path = safeReturnPath(choice);
      if (path) return sendOn(reply, path);
    }
    return page(reply, threeDsOutcomeHtml(outcome));
  };

  app.get<{
    Params: { orderId: string; token: string };
    Querystring: { returnUrl?: string; redirect?: string };
  }>(
    '/card-processor/3ds/:orderId/:token',
    { schema: { hide: true, params: ThreeDsPageParams, querystring: ThreeDsPageQuery } },
    async (request, reply) => {
      const { orderId, token } = request.params;
      if (!threeDsCapabilityValid(ctx, orderId, token)) throw notFound();
      const payment = await findPayment(ctx.db, orderId);
      if (!payment) throw notFound();
      const { returnUrl, redirect } = request.query;
      const choice = redirect ?? safeReturnPath(returnUrl) ?? null;
      if (payment.state !== 'CHALLENGE' || payment.challenge_url === null) {
        return onward(reply, orderId, 'NOT_PENDING');
      }
      await updatePayment(ctx.db, orderId, { three_ds_onward: choice });
      return sendOn(reply, payment.challenge_url);
    },
  );

  app.get<{ Params: { orderId: string; token: string } }>(
    '/card-processor/return/:orderId/:token',
    { schema: { hide: true, params: ThreeDsPageParams, querystring: ReturnQuery } },
    async (request, reply) => {
      const { orderId, token } = request.params;
      if (!threeDsCapabilityValid(ctx, orderId, token)) throw notFound();
      const resolution = await returnFromChallenge(ctx, orderId);
      // Already resolved (the processor's event came first): the page says how.
      const outcome =
        resolution.kind === 'unchanged' ? await settledOutcome(ctx, orderId) : outcomeOf(resolution);
      return onward(reply, orderId, outcome);
    },
  );

  app.post(
    `/v3/card-processor/${connector.name}/events`,
    {
      bodyLimit: EVENT_BODY_LIMIT,
      config: { auth: 'none', rawBodyTypes: ['application/json'] },
      schema: { hide: true },
    },
    async (request) => {
      // The exact bytes the processor signed (platform/http/body.ts keeps them for every body).
      const raw = request.rawBody ?? Buffer.alloc(0);
      let event: ProcessorEvent | null;
      try {
        event = connector.parseEvent(raw, request.headers);
      } catch (error) {
        if (!(error instanceof ConnectorSignatureError)) throw error;
        request.log.warn({ processor: connector.name }, 'card processor event with a bad signature refused');
        throw cardErrors.eventSignature();
      }
      if (event === null) return { received: true };
      const outcome = await onProcessorEvent(ctx, event);
      if (outcome === 'unknown-order') {
        request.log.info(
          { processor: connector.name, eventId: event.eventId },
          'card processor event for no order',
        );
      }
      return { received: true };
    },
  );
};

/** How a 3-D Secure step already resolved ended, as the page says it. */
async function settledOutcome(ctx: WalletOrdersDeps, orderId: string): Promise<string> {
  const order = await findOrder(ctx.db, orderId);
  if (!order) return 'NOT_PENDING';
  if (order.status === 'FAILED') return 'DECLINED';
  if (order.status !== 'RUNNING_CHECKS' || order.auth_state === 'PASSED') return 'APPROVED';
  return order.auth_state === 'PENDING' && order.auth_method === '3DS' ? 'PENDING' : 'NOT_PENDING';
}

function outcomeOf(resolution: Resolution): string {
  switch (resolution.kind) {
    case 'cleared':
    case 'codes':
      return 'APPROVED';
    case 'declined':
      return 'DECLINED';
    case 'unchanged':
      return 'NOT_PENDING';
    default:
      return 'PENDING';
  }
}
