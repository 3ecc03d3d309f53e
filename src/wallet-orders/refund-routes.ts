import type { FastifyPluginAsync } from 'fastify';
import { idempotencyScope, scopeOf } from '../identity/index.ts';
import { operatorAct } from '../operator/index.ts';
import { invalidValue } from '../platform/errors.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import {
  errorResponses,
  OPERATOR_SECURITY,
  PARTNER_SECURITY,
  withExample,
} from '../platform/http/openapi.ts';
import { reconcileCards } from './card-reconciliation.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { operatorRefund, simulateDispute } from './operator-actions.ts';
import {
  CardReconciliationAnswer,
  cardReconciliationExample,
  DisputeAnswer,
  DisputeBody,
  disputeExample,
  OperatorRefundAnswer,
  OperatorRefundBody,
  operatorRefundExample,
  operatorRefundRequest,
  PartnerRefundAnswer,
  PartnerRefundBody,
  partnerRefundExample,
  ReconciliationQuery,
} from './refund-schemas.ts';
import { refundForPartner } from './refunds.ts';
import { OrderParams } from './schemas.ts';

/** Refunds, sandbox disputes and the card reconciliation (docs/contract.md, decisions 113 to 122). */
export const refundRoutes: FastifyPluginAsync<{ ctx: WalletOrdersDeps }> = async (app, { ctx }) => {
  app.post<{ Params: { orderId: string } }>(
    '/v3/orders/:orderId/refund/partner',
    {
      schema: {
        tags: ['Wallet orders'],
        security: PARTNER_SECURITY,
        summary: 'Refund a card order not yet delivered: a void before capture, else the whole charge',
        description:
          'The partner whose order it is (others’ orders answer 404); the body is empty (`{}` or nothing). Before the card is captured the hold is voided; after capture and before delivery the whole charge is refunded and the delivery stopped. Either way the order becomes FAILED (`errorCode` order.refunded) with its webhook. A delivered order answers 400 `refund.afterDelivery` (the crypto is gone; the operator decides), a delivery already under way 400 `refund.deliveryUnderway`; nothing changes then. Asking again answers the same refund.',
        params: OrderParams,
        body: withExample(PartnerRefundBody, {}),
        response: {
          200: withExample(PartnerRefundAnswer, partnerRefundExample),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const outcome = await runIdempotent(ctx, request, idempotencyScope(scope), (tx) =>
        refundForPartner(ctx, tx, scope, request.params.orderId),
      );
      return sendIdempotent(reply, outcome);
    },
  );

  app.post<{
    Params: { orderId: string };
    Body: { amount?: string | number; requestedBy: string; reason?: string };
  }>(
    '/operator/v1/orders/:orderId/refunds',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'Refund a card order, also after delivery (the loss booked), whole or in part; audited',
        description:
          'Operator token only. Before delivery as the partner’s refund (whole only: a partial amount answers 400 `refund.partialBeforeDelivery`). After delivery `amount` (default: all that is left) is given back to the card and booked from house:card-refund-losses; more than is left of the charge after earlier refunds and disputes answers 400 `refund.exceedsCaptured`. Each refund has its own id, the processor’s idempotency key. Repeat safely with an Idempotency-Key.',
        params: OrderParams,
        body: withExample(OperatorRefundBody, operatorRefundRequest),
        response: {
          200: withExample(OperatorRefundAnswer, operatorRefundExample),
          ...errorResponses(400, 401, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const act = operatorAct(request);
      const outcome = await runIdempotent(ctx, request, 'operator', (tx) =>
        operatorRefund(ctx, tx, act, request.params.orderId, request.body),
      );
      request.operatorAudited = true;
      return sendIdempotent(reply, outcome);
    },
  );

  app.post<{ Params: { orderId: string }; Body: { action: 'OPEN' | 'WIN' | 'LOSE' } }>(
    '/operator/v1/sandbox/orders/:orderId/disputes',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'Sandbox: open, win or lose a dispute on a card order’s charge',
        description:
          'Operator token only, sandbox only (403 `accessDenied.sandboxOnly` otherwise). The sandbox processor disputes the whole charge and withdraws what the refunds left of it (plus a 15 dispute fee in its books); its event goes through the same handler as a real processor’s: a delivered order becomes CHARGEBACK with its webhook, WIN gives the money back and restores the status, LOSE keeps it. Closing a dispute that is not open answers 400 `dispute.notPossible`. Audited.',
        params: OrderParams,
        body: withExample(DisputeBody, { action: 'OPEN' }),
        response: {
          200: withExample(DisputeAnswer, disputeExample),
          ...errorResponses(400, 401, 403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const act = operatorAct(request);
      const outcome = await runIdempotent(ctx, request, 'operator', (tx) =>
        simulateDispute(ctx, tx, act, request.params.orderId, request.body.action),
      );
      request.operatorAudited = true;
      return sendIdempotent(reply, outcome);
    },
  );

  app.get<{ Querystring: { from?: string; to?: string } }>(
    '/operator/v1/cards/reconciliation',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'Card money to the cent: the processor’s books against the ledger’s card account',
        description:
          'Operator token only. For [from, to): books the processor fees its balance transactions show that the ledger lacks (each once: repeating the call books nothing more), then compares, per currency and per order, captured − refunded − chargebacks − processing fees − dispute fees on the processor’s books with the ledger’s external:card movements; every difference is listed in `mismatches` with its order id. Payouts match when the balance transactions paid out in them come to their amount. 503 `card.noProcessor` without a processor whose books can be read.',
        querystring: ReconciliationQuery,
        response: {
          200: withExample(CardReconciliationAnswer, cardReconciliationExample),
          ...errorResponses(400, 401, 503),
        },
      },
    },
    (request) => reconcileCards(ctx, periodOf(request.query, ctx.clock.nowMs())),
  );
};

const DAY_MS = 24 * 3600 * 1000;
const MAX_PERIOD_MS = 366 * DAY_MS;

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = /^\d{1,15}$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms))
    throw invalidValue(field, `${field} must be an ISO 8601 time or epoch milliseconds.`);
  return ms;
}

/** The period asked for: at most 366 days, `from` before `to`. */
export function periodOf(query: { from?: string | undefined; to?: string | undefined }, nowMs: number) {
  const toMs = timeOf(query.to, 'to') ?? nowMs;
  const fromMs = timeOf(query.from, 'from') ?? toMs - 30 * DAY_MS;
  if (fromMs >= toMs) throw invalidValue('from', 'from must be before to.');
  if (toMs - fromMs > MAX_PERIOD_MS) throw invalidValue('from', 'A period is at most 366 days.');
  return { fromMs, toMs };
}
