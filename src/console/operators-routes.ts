import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import {
  changeOperator,
  createOperator,
  OPERATOR_ROLES,
  type OperatorChange,
  type OperatorView,
  operatorsPage,
  PASSWORD_MIN_LENGTH,
} from '../operator/index.ts';
import { ApiError } from '../platform/errors.ts';
import { html, type SafeHtml } from '../web/index.ts';
import { csrfField, formField, formRaw, type WebSession } from '../web/sessions/index.ts';
import type { ConsoleDeps } from './deps.ts';
import { inputField } from './fields.ts';
import { consoleAct, consoleGuard } from './guard.ts';
import { setupConsoleRoutes } from './kit.ts';
import { consolePage, notice, sendConsolePage, tableRegion } from './layout.ts';

const PATH = '/console/operators';
const ListQuery = {
  type: 'object',
  properties: {
    after: { type: 'string', pattern: '^OP_[2-9A-HJ-NP-Z]{11}$' },
    done: { type: 'string', enum: ['created', 'changed'] },
  },
  additionalProperties: false,
} as const;
const IdParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^OP_[2-9A-HJ-NP-Z]{11}$' } },
  required: ['id'],
} as const;

const CHANGES: Record<string, (body: unknown) => OperatorChange> = {
  role: (body) => ({ kind: 'role', role: formField(body, 'role') }),
  disable: () => ({ kind: 'disable' }),
  enable: () => ({ kind: 'enable' }),
  'reset-totp': () => ({ kind: 'resetTotp' }),
};

/**
 * Admins manage operators (decision 137): list, create with a first password the operator
 * changes at first sign-in, change a role, disable or enable, reset the second factor. Every
 * change is audited with the admin who made it; the changed operator's sessions end.
 */
export const consoleOperatorRoutes: FastifyPluginAsync<{ ctx: ConsoleDeps }> = async (app, { ctx }) => {
  setupConsoleRoutes(app, ctx);
  const admin = consoleGuard(ctx, 'admin');

  const show = async (
    reply: FastifyReply,
    session: WebSession,
    status: number,
    after?: string,
    banner?: SafeHtml,
    form?: Record<string, string>,
  ) => {
    const page = await operatorsPage(ctx, after);
    const main = html`<h1>Operators</h1>${banner ?? ''}
${operatorTable(session, page.operators)}
${page.nextAfter ? html`<nav class="pager" aria-label="Pages"><a href="${PATH}?after=${page.nextAfter}">Next page</a></nav>` : ''}
${createForm(session, form)}`;
    return sendConsolePage(reply, status, consolePage(session, 'Operators', main, PATH));
  };

  app.get<{ Querystring: { after?: string; done?: string } }>(
    PATH,
    { schema: { hide: true, querystring: ListQuery }, preHandler: admin },
    async (request, reply) => {
      const done = request.query.done;
      const banner = done
        ? notice('ok', done === 'created' ? 'The operator was created.' : 'The operator was changed.')
        : undefined;
      return show(reply, request.webSession!, 200, request.query.after, banner);
    },
  );

  app.post(PATH, { schema: { hide: true }, preHandler: admin }, async (request, reply) => {
    const body = request.body;
    const input = {
      email: formField(body, 'email'),
      name: formField(body, 'name'),
      role: formField(body, 'role'),
    };
    try {
      await createOperator(ctx, consoleAct(request), { ...input, password: formRaw(body, 'password') });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      return show(reply, request.webSession!, error.status, undefined, notice('error', error.message), input);
    }
    return reply.redirect(`${PATH}?done=created`, 303);
  });

  app.post<{ Params: { id: string } }>(
    `${PATH}/:id`,
    { schema: { hide: true, params: IdParams }, preHandler: admin },
    async (request, reply) => {
      const make = CHANGES[formField(request.body, 'action')];
      if (!make)
        throw new ApiError('ValidationException', 'validation.invalidValue', 'Choose what to change.');
      try {
        await changeOperator(ctx, consoleAct(request), request.params.id, make(request.body));
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return show(reply, request.webSession!, error.status, undefined, notice('error', error.message));
      }
      return reply.redirect(`${PATH}?done=changed`, 303);
    },
  );
};

function roleOptions(selected: string): SafeHtml[] {
  return OPERATOR_ROLES.map(
    (role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${role}</option>`,
  );
}

function operatorTable(session: WebSession, operators: OperatorView[]): SafeHtml {
  const rows = operators.map((operator) => {
    const self = operator.id === session.subject;
    const status = operator.disabled
      ? html`<span class="badge bad">disabled</span>`
      : operator.totpEnabled
        ? html`<span class="badge ok">active</span>`
        : html`<span class="badge warn">not enrolled</span>`;
    const form = (action: string, label: string, extra: SafeHtml = html``, kind = 'secondary') =>
      html`<form method="post" action="${PATH}/${operator.id}">${csrfField(session)}<input type="hidden" name="action" value="${action}">${extra}<button class="${kind} small" type="submit">${label}</button></form>`;
    const actions = self
      ? html`<span class="muted">you</span>`
      : html`<div class="actions">
${form('role', 'Change role', html`<label class="visually-hidden" for="role-${operator.id}">Role of ${operator.email}</label><select id="role-${operator.id}" name="role">${roleOptions(operator.role)}</select>`)}
${operator.disabled ? form('enable', 'Enable') : form('disable', 'Disable', html``, 'danger')}
${operator.totpEnabled ? form('reset-totp', 'Reset second factor') : ''}
</div>`;
    return html`<tr><td>${operator.name}<br><span class="muted mono">${operator.id}</span></td><td>${operator.email}</td><td>${operator.role}</td><td>${status}</td><td>${actions}</td></tr>`;
  });
  return tableRegion(
    'Operators',
    html`<table class="table"><caption class="visually-hidden">Operators</caption>
<thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table>`,
  );
}

function createForm(session: WebSession, values: Record<string, string> = {}): SafeHtml {
  return html`<section class="panel" aria-labelledby="create-heading"><h2 id="create-heading">Create an operator</h2>
<p class="muted">Give them this first password by a channel of its own: at their first sign-in they choose their own and set up their second factor.</p>
<form class="form" method="post" action="${PATH}">${csrfField(session)}
<div class="field-row">
${inputField('name', 'Name', { value: values.name ?? '', maxlength: 100, autocomplete: 'off' })}
${inputField('email', 'E-mail', { type: 'email', value: values.email ?? '', maxlength: 254, autocomplete: 'off' })}
</div>
<div class="field-row">
<div class="field"><label for="field-role">Role</label><select id="field-role" name="role">${roleOptions(values.role ?? 'support')}</select></div>
${inputField('password', 'First password', { type: 'password', autocomplete: 'new-password', minlength: PASSWORD_MIN_LENGTH, maxlength: 200, hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
</div>
<div class="actions"><button type="submit">Create operator</button></div>
</form></section>`;
}
