import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { brandingForOperator } from '../checkout/index.ts';
import type { Rampart } from '../compose.ts';
import {
  createAccountKey,
  findAccountById,
  listAccountKeys,
  partnersPage,
  revokeAccountKey,
  switchUsersApi,
} from '../identity/index.ts';
import { getLimitOverride, setLimitOverride } from '../limits/index.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { notFound } from '../platform/errors.ts';
import { formOf } from './forms.ts';
import { consoleAct, consoleGuard } from './guard.ts';
import { decodeCursor, onePage, queryNames, queryText } from './list-kit.ts';
import { attempt, redirectAfterChange, sessionOf, showPage } from './page-reply.ts';
import {
  type PartnerDetail,
  type PartnerPageNotice,
  partnerDetailHtml,
  partnersListHtml,
} from './partners-page.ts';

const AccountParams = {
  type: 'object',
  properties: { accountId: { type: 'string', minLength: 1, maxLength: 64 } },
  required: ['accountId'],
} as const;
const KeyParams = {
  type: 'object',
  properties: {
    accountId: { type: 'string', minLength: 1, maxLength: 64 },
    apiKey: { type: 'string', minLength: 1, maxLength: 64 },
  },
  required: ['accountId', 'apiKey'],
} as const;

/** What the page says after a change it redirected from (`?done=`): fixed words, never the URL's. */
const DONE: Record<string, string> = {
  'users-api': 'The Users API switch is saved.',
  'card-limits': 'The card limits are saved.',
  revoked: 'The API key is revoked: it stopped working at once.',
};

type Params = { accountId: string };

/**
 * The partners pages: the list, and one partner's switch, card limits, API keys and branding.
 * Reading needs `support`; every change needs `admin` and goes through the service the operator
 * API's route calls, audited with the operator (consoleAct).
 */
export const consolePartnerRoutes: FastifyPluginAsync<{ ctx: Rampart }> = async (app, { ctx }) => {
  const read = consoleGuard(ctx, 'support');
  const change = consoleGuard(ctx, 'admin');

  const detailOf = async (accountId: string): Promise<PartnerDetail> => {
    const account = await findAccountById(ctx.db, accountId);
    if (account?.kind !== 'master') throw notFound('Partner');
    const [keys, limits, branding] = await Promise.all([
      listAccountKeys(ctx, accountId),
      getLimitOverride(ctx, accountId),
      brandingForOperator(ctx, accountId),
    ]);
    return {
      account: {
        id: account.id,
        name: account.name,
        status: account.status,
        country: account.country,
        usersApi: account.users_api_enabled,
        createdAt: account.created_at,
      },
      keys: keys.data,
      limits,
      branding,
    };
  };
  const showPartner = async (request: FastifyRequest, shown: PartnerPageNotice, status = 200) => {
    const { accountId } = request.params as Params;
    const detail = await detailOf(accountId);
    const title = detail.account.name ?? detail.account.id;
    return { status, title, main: partnerDetailHtml(sessionOf(request), detail, shown) };
  };

  app.get(
    '/console/partners',
    { preHandler: read, schema: { hide: true, querystring: queryNames('q', 'after') } },
    async (request, reply) => {
      const search = queryText(request, 'q', 100);
      const after = decodeCursor(queryText(request, 'after', 400));
      const { rows, next } = await onePage(
        (limit) => partnersPage(ctx, search, after, limit),
        (row) => [row.created_key, row.id],
      );
      return showPage(
        reply,
        sessionOf(request),
        'Partners',
        partnersListHtml(rows, search, next),
        '/console/partners',
      );
    },
  );

  app.get<{ Params: Params }>(
    '/console/partners/:accountId',
    { preHandler: read, schema: { hide: true, params: AccountParams, querystring: queryNames('done') } },
    async (request, reply) => {
      const done = queryText(request, 'done', 20);
      const page = await showPartner(request, { ok: done === undefined ? undefined : DONE[done] });
      return showPage(reply, sessionOf(request), page.title, page.main, '/console/partners');
    },
  );

  /** Runs a change; success goes back to the partner's page, a refusal is shown on it. */
  const post = (
    path: string,
    params: object,
    run: (request: FastifyRequest, form: Record<string, string>) => Promise<string | PartnerPageNotice>,
  ) =>
    app.post(path, { preHandler: change, schema: { hide: true, params } }, async (request, reply) => {
      const outcome = await attempt(() => run(request, formOf(request)));
      const { accountId } = request.params as Params;
      if (outcome.ok && typeof outcome.value === 'string') {
        return redirectAfterChange(
          reply,
          `/console/partners/${encodeURIComponent(accountId)}?done=${outcome.value}`,
        );
      }
      const page = outcome.ok
        ? await showPartner(request, outcome.value as PartnerPageNotice)
        : await showPartner(request, { error: outcome.message }, outcome.status);
      return showPage(reply, sessionOf(request), page.title, page.main, '/console/partners', page.status);
    });

  post('/console/partners/:accountId/users-api', AccountParams, async (request, form) => {
    const { accountId } = request.params as Params;
    await switchUsersApi(ctx, consoleAct(request), accountId, form.enabled === 'true');
    return 'users-api';
  });

  post('/console/partners/:accountId/card-limits', AccountParams, async (request, form) => {
    const { accountId } = request.params as Params;
    await setLimitOverride(ctx, consoleAct(request), accountId, limitsBody(form));
    return 'card-limits';
  });

  post('/console/partners/:accountId/keys', AccountParams, async (request, form) => {
    const { accountId } = request.params as Params;
    const whitelist = (form.ipWhitelist ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    const input = { type: form.type as 'FULL', desc: form.desc ?? '', ipWhitelist: whitelist };
    const created = await withTransaction(ctx.db, (tx) =>
      createAccountKey(ctx, tx, consoleAct(request), accountId, input),
    );
    // Shown in this answer only: the page a reload or a later visit gets has no secret on it.
    return { createdKey: { apiKey: created.apiKey, secretKey: created.secretKey } };
  });

  post('/console/partners/:accountId/keys/:apiKey/revoke', KeyParams, async (request) => {
    const { accountId, apiKey } = request.params as Params & { apiKey: string };
    await revokeAccountKey(ctx, consoleAct(request), accountId, apiKey);
    return 'revoked';
  });
};

/**
 * The card limits form as the operator API's body: a tier with every field empty is left out
 * (the defaults); anything typed goes to the service, which checks it.
 */
function limitsBody(form: Record<string, string>) {
  const body: Record<string, { daily: string; weekly: string; yearly: string }> = {};
  for (const tier of ['STANDARD', 'DEBIT_CARD_L2']) {
    const values = ['daily', 'weekly', 'yearly'].map((window) => (form[`${tier}.${window}`] ?? '').trim());
    if (values.every((value) => value === '')) continue;
    body[tier] = { daily: values[0]!, weekly: values[1]!, yearly: values[2]! };
  }
  return body;
}
