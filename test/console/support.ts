import { base32nopad } from '@scure/base';
import { expect } from 'vitest';
import { totpCode, totpStep } from '../../src/operator/totp.ts';
import { operatorHeaders, type TestApp } from '../helpers/app.ts';

/** Browser-like calls to the console over real HTTP: form posts from this origin, cookies kept by hand. */
export interface Browser {
  cookie: string;
}

export const PASSWORD = 'correct horse battery staple';

export async function bootstrapAdmin(t: TestApp, email = 'ada@example.com', password = PASSWORD) {
  const response = await fetch(`${t.baseUrl}/operator/v1/operators/bootstrap`, {
    method: 'POST',
    headers: operatorHeaders(),
    body: JSON.stringify({ email, name: 'Ada Lovelace', password }),
  });
  return response;
}

export function cookieOf(response: Response): string | undefined {
  const set = response.headers.get('set-cookie');
  if (!set) return undefined;
  return set.split(';')[0];
}

export function csrfOf(page: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  expect(token, 'the page carries a CSRF token').toBeDefined();
  return token!;
}

export function postForm(
  t: TestApp,
  path: string,
  fields: Record<string, string>,
  cookie?: string,
  headers: Record<string, string> = {},
) {
  return fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: t.baseUrl,
      'sec-fetch-site': 'same-origin',
      ...(cookie ? { cookie } : {}),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

export function getPage(t: TestApp, path: string, cookie?: string) {
  return fetch(`${t.baseUrl}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}

/** Moves the service clock two TOTP steps on (past a next-step code used before), so a new sign-in has a code no earlier one used. */
export async function nextStep(t: TestApp) {
  const moved = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
    method: 'POST',
    headers: operatorHeaders(),
    body: JSON.stringify({ advanceSeconds: 60 }),
  });
  expect(moved.status).toBe(200);
}

/** The code of the step `offset` steps from now on the app's clock. */
export function codeFor(t: TestApp, seed: Buffer, offset = 0): string {
  return totpCode(seed, totpStep(t.ctx.clock.nowMs()) + offset);
}

export const seedOf = (secret: string) => Buffer.from(base32nopad.decode(secret.replace(/\s/g, '')));

/**
 * Signs in through every step: password, a new password when one is due, then the code (or
 * enrolment, which returns the new seed). `codeOffset` picks a later step than one used before.
 */
export async function signIn(
  t: TestApp,
  email: string,
  password: string,
  options: { seed?: Buffer; codeOffset?: number; newPassword?: string } = {},
): Promise<{ cookie: string; seed: Buffer; csrf: string }> {
  const first = await postForm(t, '/console/sign-in', { email, password });
  expect(first.status, await first.clone().text()).toBe(303);
  let cookie = cookieOf(first)!;
  let next = first.headers.get('location')!;
  if (next === '/console/sign-in/password') {
    const page = await (await getPage(t, next, cookie)).text();
    const np = options.newPassword ?? `${password} renewed`;
    const changed = await postForm(
      t,
      next,
      { _csrf: csrfOf(page), newPassword: np, confirmPassword: np },
      cookie,
    );
    expect(changed.status).toBe(303);
    next = changed.headers.get('location')!;
  }
  const page = await (await getPage(t, next, cookie)).text();
  let seed = options.seed;
  if (next === '/console/sign-in/enrol') {
    seed = seedOf(/id="totp-secret">([^<]+)</.exec(page)![1]!);
  }
  const done = await postForm(
    t,
    next,
    { _csrf: csrfOf(page), code: codeFor(t, seed!, options.codeOffset ?? 0) },
    cookie,
  );
  expect(done.status, await done.clone().text()).toBe(303);
  expect(done.headers.get('location')).toBe('/console');
  cookie = cookieOf(done)!;
  const home = await getPage(t, '/console', cookie);
  expect(home.status).toBe(200);
  return { cookie, seed: seed!, csrf: csrfOf(await home.text()) };
}
