import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  changePassword,
  checkPassword,
  checkSecondFactor,
  confirmEnrolment,
  enrolment,
  getOperator,
  operatorsExist,
  PASSWORD_MIN_LENGTH,
  type SignedInOperator,
} from '../operator/index.ts';
import { ApiError } from '../platform/errors.ts';
import { html, type SafeHtml } from '../web/index.ts';
import {
  checkFormPost,
  checkSameOrigin,
  csrfField,
  formField,
  formRaw,
  loadSession,
  loadSessionAt,
  startSession,
  type WebSession,
} from '../web/sessions/index.ts';
import type { ConsoleDeps } from './deps.ts';
import { codeField, inputField } from './fields.ts';
import { setupConsoleRoutes } from './kit.ts';
import { consolePublicPage, notice, sendConsolePage } from './layout.ts';

const SignInQuery = {
  type: 'object',
  properties: { signedOut: { type: 'string', maxLength: 1 }, setup: { type: 'string', maxLength: 1 } },
  additionalProperties: false,
} as const;

const PATHS = {
  signIn: '/console/sign-in',
  code: '/console/sign-in/code',
  enrol: '/console/sign-in/enrol',
  password: '/console/sign-in/password',
};

/**
 * Signing in to the console (docs/contract.md, decision 142): e-mail and password, then a new
 * password if an admin set the current one, then the TOTP code or, the first time, enrolment.
 * Each step is a session at a stage before 'active'; the active session is a new one, with a
 * new token, so a token seen before sign-in never opens the console.
 */
export const consoleSignInRoutes: FastifyPluginAsync<{ ctx: ConsoleDeps }> = async (app, { ctx }) => {
  setupConsoleRoutes(app, ctx);

  app.get<{ Querystring: { signedOut?: string; setup?: string } }>(
    PATHS.signIn,
    { schema: { hide: true, querystring: SignInQuery } },
    async (request, reply) => {
      if (await loadSession(ctx, request, 'console')) return reply.redirect('/console', 303);
      let banner: SafeHtml | undefined;
      if (request.query.signedOut) banner = notice('ok', 'You are signed out.');
      if (request.query.setup)
        banner = notice('ok', 'The first admin is ready: sign in with its e-mail and password.');
      if (!(await operatorsExist(ctx))) {
        banner = notice(
          'warn',
          html`No operator exists yet. <a href="/console/setup">Set up the first admin</a>.`,
        );
      }
      return sendConsolePage(reply, 200, signInPage(banner));
    },
  );

  app.post(PATHS.signIn, { schema: { hide: true } }, async (request, reply) => {
    checkSameOrigin(request);
    const email = formField(request.body, 'email');
    const outcome = await checkPassword(ctx, {
      email,
      password: formRaw(request.body, 'password'),
      ip: request.ip,
    });
    if (outcome.kind === 'locked') {
      const text = 'Too many failed sign-ins. Wait a few minutes, then try again.';
      return sendConsolePage(reply, 429, signInPage(notice('error', text), email));
    }
    if (outcome.kind === 'refused') {
      return sendConsolePage(
        reply,
        400,
        signInPage(notice('error', 'The e-mail or the password is not right.'), email),
      );
    }
    const operator = await getOperator(ctx, outcome.operator.id);
    const stage = operator?.totpEnabled ? 'second-factor' : 'enrol';
    await startSession(ctx, reply, { kind: 'console', ...owner(outcome.operator) }, stage);
    const next = outcome.next === 'password' ? PATHS.password : stage === 'enrol' ? PATHS.enrol : PATHS.code;
    return reply.redirect(next, 303);
  });

  app.get(PATHS.password, { schema: { hide: true } }, async (request, reply) => {
    const pending = await pendingSession(request);
    if (!pending) return reply.redirect(PATHS.signIn, 303);
    return sendConsolePage(reply, 200, newPasswordPage(pending));
  });

  app.post(PATHS.password, { schema: { hide: true } }, async (request, reply) => {
    const pending = await pendingSession(request);
    if (!pending) return reply.redirect(PATHS.signIn, 303);
    checkFormPost(request, pending);
    try {
      await changePassword(ctx, pending.subject, {
        next: formRaw(request.body, 'newPassword'),
        confirm: formRaw(request.body, 'confirmPassword'),
      });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      return sendConsolePage(reply, 400, newPasswordPage(pending, notice('error', error.message)));
    }
    const operator = await getOperator(ctx, pending.subject);
    return reply.redirect(operator?.totpEnabled ? PATHS.code : PATHS.enrol, 303);
  });

  app.get(PATHS.code, { schema: { hide: true } }, async (request, reply) => {
    const pending = await loadSessionAt(ctx, request, 'console', 'second-factor');
    if (!pending) return reply.redirect(PATHS.signIn, 303);
    if ((await getOperator(ctx, pending.subject))?.mustChangePassword)
      return reply.redirect(PATHS.password, 303);
    return sendConsolePage(reply, 200, codePage(pending));
  });

  app.post(PATHS.code, { schema: { hide: true } }, async (request, reply) => {
    const pending = await loadSessionAt(ctx, request, 'console', 'second-factor');
    if (!pending) return reply.redirect(PATHS.signIn, 303);
    checkFormPost(request, pending);
    const operator = await checkSecondFactor(
      ctx,
      pending.subject,
      formField(request.body, 'code'),
      request.ip,
    );
    if (!operator) {
      const text = 'That code is not right, or was used already. Wait for the next code and try again.';
      return sendConsolePage(reply, 400, codePage(pending, notice('error', text)));
    }
    return activate(reply, operator);
  });

  app.get(PATHS.enrol, { schema: { hide: true } }, async (request, reply) => {
    const pending = await loadSessionAt(ctx, request, 'console', 'enrol');
    if (!pending) return reply.redirect(PATHS.signIn, 303);
    if ((await getOperator(ctx, pending.subject))?.mustChangePassword)
      return reply.redirect(PATHS.password, 303);
    const seed = await enrolment(ctx, pending.subject);
    if (!seed) return reply.redirect(PATHS.signIn, 303);
    return sendConsolePage(reply, 200, enrolPage(pending, seed));
  });

  app.post(PATHS.enrol, { schema: { hide: true } }, async (request, reply) => {
    const pending = await loadSessionAt(ctx, request, 'console', 'enrol');
    if (!pending) return reply.redirect(PATHS.signIn, 303);
    checkFormPost(request, pending);
    const operator = await confirmEnrolment(
      ctx,
      pending.subject,
      formField(request.body, 'code'),
      request.ip,
    );
    if (!operator) {
      const seed = await enrolment(ctx, pending.subject);
      if (!seed) return reply.redirect(PATHS.signIn, 303);
      const text = 'That code is not right. Check the app shows Rampart and try the newest code.';
      return sendConsolePage(reply, 400, enrolPage(pending, seed, notice('error', text)));
    }
    return activate(reply, operator);
  });

  async function pendingSession(request: FastifyRequest): Promise<WebSession | undefined> {
    const session =
      (await loadSessionAt(ctx, request, 'console', 'second-factor')) ??
      (await loadSessionAt(ctx, request, 'console', 'enrol'));
    if (!session) return undefined;
    return (await getOperator(ctx, session.subject))?.mustChangePassword ? session : undefined;
  }

  async function activate(reply: FastifyReply, operator: SignedInOperator) {
    await startSession(ctx, reply, { kind: 'console', ...owner(operator) });
    return reply.redirect('/console', 303);
  }
};

const owner = (operator: SignedInOperator) => ({
  subject: operator.id,
  label: operator.email,
  role: operator.role,
});

function signInPage(banner?: SafeHtml, email = ''): string {
  return consolePublicPage(
    'Sign in',
    html`<h1>Sign in</h1>
${banner ?? ''}
<div class="panel"><form class="form" method="post" action="${PATHS.signIn}">
${inputField('email', 'E-mail', { type: 'email', autocomplete: 'username', value: email, maxlength: 254 })}
${inputField('password', 'Password', { type: 'password', autocomplete: 'current-password', maxlength: 200 })}
<div class="actions"><button type="submit">Continue</button></div>
</form></div>`,
  );
}

function newPasswordPage(session: WebSession, banner?: SafeHtml): string {
  return consolePublicPage(
    'Choose a password',
    html`<h1>Choose your password</h1>
<p>An admin set your first password. Choose one only you know.</p>
${banner ?? ''}
<div class="panel"><form class="form" method="post" action="${PATHS.password}">${csrfField(session)}
<input type="text" name="username" value="${session.label}" autocomplete="username" hidden>
${inputField('newPassword', 'New password', { type: 'password', autocomplete: 'new-password', minlength: PASSWORD_MIN_LENGTH, maxlength: 200, hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
${inputField('confirmPassword', 'New password again', { type: 'password', autocomplete: 'new-password', maxlength: 200 })}
<div class="actions"><button type="submit">Save password</button></div>
</form></div>`,
  );
}

function codePage(session: WebSession, banner?: SafeHtml): string {
  return consolePublicPage(
    'Enter your code',
    html`<h1>Enter your code</h1>
<p>Signing in as <strong>${session.label}</strong>. Open your authenticator app and enter the code it shows for Rampart.</p>
${banner ?? ''}
<div class="panel"><form class="form" method="post" action="${PATHS.code}">${csrfField(session)}
${codeField()}
<div class="actions"><button type="submit">Sign in</button></div>
</form></div>
<form method="post" action="/console/sign-out"><button class="secondary" type="submit">Cancel</button></form>`,
  );
}

function enrolPage(session: WebSession, seed: { secret: string; uri: string }, banner?: SafeHtml): string {
  const grouped = seed.secret.replace(/(.{4})/g, '$1 ').trim();
  return consolePublicPage(
    'Set up your second factor',
    html`<h1>Set up your second factor</h1>
<p>Signing in as <strong>${session.label}</strong>. Every sign-in asks for a code from an authenticator app
(such as Google Authenticator, 1Password or Aegis). Add Rampart to yours now.</p>
${banner ?? ''}
<div class="panel">
<h2>1. Add Rampart to your app</h2>
<p>Type this key into the app (time-based, 6 digits, 30 seconds), or open the setup link on the device that has the app:</p>
<code class="secret" id="totp-secret">${grouped}</code>
<details><summary>Setup link</summary><p class="mono">${seed.uri}</p></details>
<h2>2. Enter the code it shows</h2>
<form class="form" method="post" action="${PATHS.enrol}">${csrfField(session)}
${codeField()}
<div class="actions"><button type="submit">Confirm and sign in</button></div>
</form>
</div>
<p class="muted">Keep the key safe: whoever has it can make your codes. If you lose your phone, an admin resets your second factor.</p>`,
  );
}
