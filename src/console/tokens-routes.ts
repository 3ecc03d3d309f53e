import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { createPersonalToken, personalTokens, revokePersonalToken } from '../operator/index.ts';
import { ApiError } from '../platform/errors.ts';
import { html, type SafeHtml } from '../web/index.ts';
import { csrfField, formField, type WebSession } from '../web/sessions/index.ts';
import type { ConsoleDeps } from './deps.ts';
import { inputField } from './fields.ts';
import { consoleAct, consoleGuard } from './guard.ts';
import { setupConsoleRoutes } from './kit.ts';
import { consolePage, notice, sendConsolePage, tableRegion } from './layout.ts';

const PATH = '/console/tokens';
const ListQuery = {
  type: 'object',
  properties: { done: { type: 'string', enum: ['revoked'] } },
  additionalProperties: false,
} as const;
const IdParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^[0-9]{1,18}$' } },
  required: ['id'],
} as const;

/**
 * Personal operator API tokens (decision 139): every operator makes their own, for scripts and
 * the CLI, so the operator API can say who did what. The token is shown once.
 */
export const consoleTokenRoutes: FastifyPluginAsync<{ ctx: ConsoleDeps }> = async (app, { ctx }) => {
  setupConsoleRoutes(app, ctx);
  const signedIn = consoleGuard(ctx, 'support');

  const show = async (reply: FastifyReply, session: WebSession, status: number, banner?: SafeHtml) => {
    const tokens = await personalTokens(ctx, session.subject);
    const rows = tokens.map(
      (
        token,
      ) => html`<tr><td>${token.label}</td><td>${token.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</td>
<td>${token.revokedAt ? html`<span class="badge bad">revoked</span>` : html`<span class="badge ok">live</span>`}</td>
<td>${token.revokedAt ? '' : html`<form method="post" action="${PATH}/${token.id}/revoke">${csrfField(session)}<button class="danger small" type="submit">Revoke <span class="visually-hidden">${token.label}</span></button></form>`}</td></tr>`,
    );
    const main = html`<h1>API tokens</h1>
<p>A personal token calls the operator API (<code>Authorization: Bearer rop_…</code>) as you, with your role
(<strong>${session.role ?? ''}</strong>); the audit log names you on every call.</p>
${banner ?? ''}
${tokens.length ? tableRegion('Your tokens', html`<table class="table"><caption class="visually-hidden">Your tokens</caption><thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>`) : html`<p class="muted">You have no tokens.</p>`}
<section class="panel" aria-labelledby="new-token"><h2 id="new-token">Create a token</h2>
<form class="form" method="post" action="${PATH}">${csrfField(session)}
${inputField('label', 'Name', { maxlength: 80, hint: 'What uses it, such as “deploy script”.', autocomplete: 'off' })}
<div class="actions"><button type="submit">Create token</button></div>
</form></section>`;
    return sendConsolePage(reply, status, consolePage(session, 'API tokens', main, PATH));
  };

  app.get<{ Querystring: { done?: string } }>(
    PATH,
    { schema: { hide: true, querystring: ListQuery }, preHandler: signedIn },
    async (request, reply) =>
      show(
        reply,
        request.webSession!,
        200,
        request.query.done ? notice('ok', 'The token was revoked.') : undefined,
      ),
  );

  app.post(PATH, { schema: { hide: true }, preHandler: signedIn }, async (request, reply) => {
    try {
      const made = await createPersonalToken(ctx, consoleAct(request), formField(request.body, 'label'));
      const shown = html`<div class="notice ok" role="status"><p>Token <strong>${made.label}</strong> created. Copy it now: it is not shown again.</p>
<code class="secret" id="new-token-value">${made.token}</code></div>`;
      return show(reply, request.webSession!, 201, shown);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      return show(reply, request.webSession!, error.status, notice('error', error.message));
    }
  });

  app.post<{ Params: { id: string } }>(
    `${PATH}/:id/revoke`,
    { schema: { hide: true, params: IdParams }, preHandler: signedIn },
    async (request, reply) => {
      await revokePersonalToken(ctx, consoleAct(request), request.params.id);
      return reply.redirect(`${PATH}?done=revoked`, 303);
    },
  );
};
