import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { chainsWithCustody, reconcileChain } from '../chains/index.ts';
import type { Rampart } from '../compose.ts';
import { customerBalancesPage, houseBalances } from '../ledger/index.ts';
import { type AuditFilter, auditPage } from '../operator/index.ts';
import { invalidValue } from '../platform/errors.ts';
import {
  cardPaymentsNeedingAttention,
  disputesPage,
  type OrderStatus,
  periodOf,
  recentOrdersPage,
  reconcileCards,
} from '../wallet-orders/index.ts';
import { type AuditQuery, auditHtml } from './audit-page.ts';
import { disputesHtml, ORDER_STATUSES, ordersHtml } from './disputes-page.ts';
import { formOf } from './forms.ts';
import { consoleGuard } from './guard.ts';
import { BALANCE_KINDS, type BalanceKind, ledgerHtml } from './ledger-page.ts';
import { decodeCursor, onePage, queryNames, queryText } from './list-kit.ts';
import { attempt, sessionOf, showPage } from './page-reply.ts';
import { type ChainOutcome, reconciliationHtml } from './reconciliation-page.ts';

/**
 * The console's read pages over the money: ledger balances, the audit log, card orders and
 * disputes, and reconciliation. Everything here reads, except the card reconciliation, which
 * books the processor fees it finds (docs/contract.md, decision 120), so it runs on an admin's
 * form post only.
 */
export const consoleOperationsRoutes: FastifyPluginAsync<{ ctx: Rampart }> = async (app, { ctx }) => {
  const read = consoleGuard(ctx, 'support');
  const admin = consoleGuard(ctx, 'admin');
  const options = (...names: string[]) => ({
    preHandler: read,
    schema: { hide: true, querystring: queryNames(...names) },
  });

  app.get('/console/ledger', options('kind', 'owner', 'after'), async (request, reply) => {
    const typedKind = queryText(request, 'kind', 10);
    const kind: BalanceKind = BALANCE_KINDS.find((k) => k === typedKind) ?? 'all';
    const owner = queryText(request, 'owner', 80);
    const after = decodeCursor(queryText(request, 'after', 400));
    const [house, customers] = await Promise.all([
      houseBalances(ctx),
      onePage(
        (limit) => customerBalancesPage(ctx, owner === undefined ? { kind } : { owner }, after, limit),
        (line) => [line.owner, line.currency],
      ),
    ]);
    const main = ledgerHtml(house, customers.rows, { kind, owner }, customers.next);
    return showPage(reply, sessionOf(request), 'Ledger balances', main, '/console/ledger');
  });

  app.get(
    '/console/audit',
    options('actor', 'action', 'outcome', 'target', 'from', 'to', 'after'),
    async (request, reply) => {
      const query = auditQueryOf(request);
      const outcome = await attempt(async () => {
        const filter = auditFilterOf(query);
        const after = decodeCursor(queryText(request, 'after', 400));
        return onePage(
          (limit) => auditPage(ctx, filter, after, limit),
          (row) => [row.at_key, row.id],
        );
      });
      const main = outcome.ok
        ? auditHtml(query, outcome.value.rows, outcome.value.next)
        : auditHtml(query, [], undefined, outcome.message);
      return showPage(reply, sessionOf(request), 'Audit log', main, '/console/audit', outcome.ok ? 200 : 400);
    },
  );

  app.get('/console/orders', options('status', 'after'), async (request, reply) => {
    const typed = queryText(request, 'status', 20);
    const status = ORDER_STATUSES.find((s) => s === typed);
    const after = decodeCursor(queryText(request, 'after', 400));
    const { rows, next } = await onePage(
      (limit) => recentOrdersPage(ctx, { status }, after, limit),
      (row) => [row.created_key, row.id],
    );
    return showPage(
      reply,
      sessionOf(request),
      'Card orders',
      ordersHtml(status, rows, next),
      '/console/orders',
    );
  });

  app.get('/console/disputes', options('all', 'after', 'orders_after'), async (request, reply) => {
    const openOnly = queryText(request, 'all', 1) === undefined;
    const disputesAfter = decodeCursor(queryText(request, 'after', 400));
    const ordersAfter = decodeCursor(queryText(request, 'orders_after', 400));
    const chargeback: OrderStatus = 'CHARGEBACK';
    const [disputes, chargebacks, attention] = await Promise.all([
      onePage(
        (limit) => disputesPage(ctx, { openOnly }, disputesAfter, limit),
        (row) => [row.opened_key, row.reference],
      ),
      onePage(
        (limit) => recentOrdersPage(ctx, { status: chargeback }, ordersAfter, limit),
        (row) => [row.created_key, row.id],
      ),
      cardPaymentsNeedingAttention(ctx),
    ]);
    const main = disputesHtml({ ...disputes, openOnly }, chargebacks, attention);
    return showPage(reply, sessionOf(request), 'Disputes', main, '/console/disputes');
  });

  const chainOutcomes = () =>
    Promise.all(
      chainsWithCustody(ctx).map(async (chain): Promise<ChainOutcome> => {
        const outcome = await attempt(() => reconcileChain(ctx, chain));
        return outcome.ok
          ? { chain, ok: true, reconciliation: outcome.value }
          : { chain, ok: false, message: outcome.message };
      }),
    );

  app.get('/console/reconciliation', options(), async (request, reply) => {
    const main = reconciliationHtml(sessionOf(request), await chainOutcomes(), {
      period: { from: '', to: '' },
    });
    return showPage(reply, sessionOf(request), 'Reconciliation', main, '/console/reconciliation');
  });

  app.post(
    '/console/reconciliation/cards',
    { preHandler: admin, schema: { hide: true } },
    async (request, reply) => {
      const form = formOf(request);
      const period = { from: (form.from ?? '').trim(), to: (form.to ?? '').trim() };
      const outcome = await attempt(() => reconcileCards(ctx, periodOf(period, ctx.clock.nowMs())));
      const cards = outcome.ok ? { period, result: outcome.value } : { period, error: outcome.message };
      const main = reconciliationHtml(sessionOf(request), await chainOutcomes(), cards);
      const status = outcome.ok ? 200 : outcome.status;
      return showPage(reply, sessionOf(request), 'Reconciliation', main, '/console/reconciliation', status);
    },
  );
};

function auditQueryOf(request: FastifyRequest): AuditQuery {
  const outcome = queryText(request, 'outcome', 10);
  return {
    actor: queryText(request, 'actor', 200),
    action: queryText(request, 'action', 200),
    outcome: outcome === 'ok' || outcome === 'denied' || outcome === 'rejected' ? outcome : undefined,
    target: queryText(request, 'target', 200),
    from: queryText(request, 'from', 40),
    to: queryText(request, 'to', 40),
  };
}

/** A time typed in the form (`datetime-local`, read as UTC) or an ISO 8601 time with its zone. */
function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const withZone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value}Z` : value;
  const ms = Date.parse(withZone);
  if (!Number.isFinite(ms))
    throw invalidValue(field, `${field} must be a date and time, such as 2026-01-31T14:00.`);
  return ms;
}

function auditFilterOf(query: AuditQuery): AuditFilter {
  return {
    actor: query.actor,
    action: query.action,
    outcome: query.outcome,
    target: query.target,
    fromMs: timeOf(query.from, 'from'),
    toMs: timeOf(query.to, 'to'),
  };
}
