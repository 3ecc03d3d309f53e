import type { FastifyPluginAsync } from 'fastify';
import {
  bootstrapFirstAdmin,
  OPERATOR_TOKEN_ACTOR,
  operatorAction,
  operatorsExist,
  PASSWORD_MIN_LENGTH,
} from '../operator/index.ts';
import { secretsEqual } from '../platform/crypto.ts';
import { ApiError } from '../platform/errors.ts';
import { html, type SafeHtml } from '../web/index.ts';
import { checkSameOrigin, formField, formRaw } from '../web/sessions/index.ts';
import type { ConsoleDeps } from './deps.ts';
import { inputField } from './fields.ts';
import { setupConsoleRoutes } from './kit.ts';
import { consolePublicPage, notice, sendConsolePage } from './layout.ts';

/**
 * The first admin, made in the browser with the operator token (docs/contract.md, decision 138):
 * the page exists only while there is no operator; after that it sends people to sign in.
 */
export const consoleSetupRoutes: FastifyPluginAsync<{ ctx: ConsoleDeps }> = async (app, { ctx }) => {
  setupConsoleRoutes(app, ctx);

  app.get('/console/setup', { schema: { hide: true } }, async (_request, reply) => {
    if (await operatorsExist(ctx)) return reply.redirect('/console/sign-in', 303);
    return sendConsolePage(reply, 200, setupPage());
  });

  app.post('/console/setup', { schema: { hide: true } }, async (request, reply) => {
    checkSameOrigin(request);
    if (await operatorsExist(ctx)) return reply.redirect('/console/sign-in', 303);
    const body = request.body;
    const values = { email: formField(body, 'email'), name: formField(body, 'name') };
    if (!secretsEqual(formRaw(body, 'operatorToken'), ctx.config.operatorToken)) {
      return sendConsolePage(
        reply,
        403,
        setupPage(notice('error', 'The operator token is not right.'), values),
      );
    }
    const password = formRaw(body, 'password');
    if (password !== formRaw(body, 'confirmPassword')) {
      return sendConsolePage(reply, 400, setupPage(notice('error', 'The two passwords differ.'), values));
    }
    const act = { action: operatorAction(request), remoteIp: request.ip, actor: OPERATOR_TOKEN_ACTOR };
    try {
      await bootstrapFirstAdmin(ctx, act, { ...values, password });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      return sendConsolePage(reply, error.status, setupPage(notice('error', error.message), values));
    }
    return reply.redirect('/console/sign-in?setup=1', 303);
  });
};

function setupPage(banner?: SafeHtml, values: { email?: string; name?: string } = {}): string {
  return consolePublicPage(
    'Set up the console',
    html`<h1>Set up the console</h1>
<p>No operator exists yet. Create the first admin with the operator token (<code>RAMPART_OPERATOR_TOKEN</code>;
in sandbox it is in <code>sandbox-secrets.json</code> in the data directory). Admins create every other operator in the console.</p>
${banner ?? ''}
<div class="panel"><form class="form" method="post" action="/console/setup">
${inputField('operatorToken', 'Operator token', { type: 'password', autocomplete: 'off', maxlength: 256 })}
${inputField('name', 'Your name', { autocomplete: 'name', value: values.name ?? '', maxlength: 100 })}
${inputField('email', 'Your e-mail', { type: 'email', autocomplete: 'username', value: values.email ?? '', maxlength: 254 })}
${inputField('password', 'Password', { type: 'password', autocomplete: 'new-password', minlength: PASSWORD_MIN_LENGTH, maxlength: 200, hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
${inputField('confirmPassword', 'Password again', { type: 'password', autocomplete: 'new-password', maxlength: 200 })}
<div class="actions"><button type="submit">Create the first admin</button></div>
</form></div>`,
  );
}
