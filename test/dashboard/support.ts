import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';

/**
 * A browser's part in the dashboard, over real HTTP: the session cookie kept as a browser keeps
 * it (only what the server set, sent back only under its Path), forms posted with their hidden
 * `_csrf` and the same-origin headers a browser sends.
 */
export class DashboardClient {
  cookie: string | undefined;
  cookieHeader: string | undefined;

  constructor(private readonly t: TestApp) {}

  async get(path: string) {
    const response = await fetch(`${this.t.baseUrl}${path}`, {
      headers: this.headers(path),
      redirect: 'manual',
    });
    return {
      status: response.status,
      location: response.headers.get('location'),
      text: await response.text(),
      response,
    };
  }

  /** Posts a form as a browser on our own page does (Origin and Sec-Fetch-Site of this site). */
  async post(path: string, fields: Record<string, string>, extraHeaders: Record<string, string> = {}) {
    const response = await fetch(`${this.t.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: this.t.baseUrl,
        'sec-fetch-site': 'same-origin',
        ...this.headers(path),
        ...extraHeaders,
      },
      body: new URLSearchParams(fields).toString(),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.keep(setCookie);
    return {
      status: response.status,
      location: response.headers.get('location'),
      text: await response.text(),
      response,
    };
  }

  async signIn(credentials: Pick<PartnerCredentials, 'apiKey' | 'secretKey'>) {
    const answer = await this.post('/dashboard/sign-in', {
      apiKey: credentials.apiKey,
      secretKey: credentials.secretKey,
    });
    expect(answer.status, answer.text).toBe(303);
    expect(answer.location).toBe('/dashboard/orders');
    return answer;
  }

  /** The `_csrf` of a page's forms (every form of a session carries the same one). */
  async csrfOf(path: string): Promise<string> {
    const page = await this.get(path);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    expect(token, `no form token on ${path}: ${page.status}`).toBeDefined();
    return token!;
  }

  async postForm(path: string, formPage: string, fields: Record<string, string> = {}) {
    return this.post(path, { _csrf: await this.csrfOf(formPage), ...fields });
  }

  private keep(setCookie: string) {
    const [pair, ...flags] = setCookie.split(';').map((part) => part.trim());
    this.cookie = setCookie;
    const maxAgeZero = flags.some((flag) => flag.toLowerCase() === 'max-age=0');
    this.cookieHeader = maxAgeZero ? undefined : pair;
  }

  private headers(path: string): Record<string, string> {
    return this.cookieHeader && path.startsWith('/dashboard') ? { cookie: this.cookieHeader } : {};
  }
}

/** The text of the element with this id in a page, tags stripped. */
export function textOf(page: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page);
  return match?.[1]?.replace(/<[^>]+>/g, '').trim();
}
