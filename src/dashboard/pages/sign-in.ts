import { html } from '../../web/index.ts';
import { notice, plainPage } from '../layout.ts';

/**
 * The sign-in form. The secret's field is never filled back in (a refused attempt shows an empty
 * one), autocomplete is off for it, and nothing of it reaches the browser's storage: the post's
 * answer sets only the session cookie.
 */
export function signInPage(options: { error?: string; apiKey?: string } = {}): string {
  return plainPage(
    'Sign in',
    html`${notice('error', options.error)}
<p>Sign in with one of your account's API keys and its secret. The secret is checked and forgotten; this browser keeps only a session.</p>
<form method="post" action="/dashboard/sign-in" class="card" id="sign-in-form">
<label for="api-key">API key</label>
<input type="text" id="api-key" name="apiKey" required maxlength="64" autocomplete="username" spellcheck="false" value="${options.apiKey ?? ''}">
<label for="secret">Secret key</label>
<input type="password" id="secret" name="secretKey" required maxlength="512" autocomplete="off">
<button type="submit" class="primary" id="sign-in">Sign in</button>
</form>`,
  );
}
