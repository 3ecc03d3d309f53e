import { createHmac } from 'node:crypto';
import { operatorHeaders, type TestApp } from './app.ts';

export interface PartnerCredentials {
  accountId: string;
  apiKey: string;
  secretKey: string;
}

/** A master account made through the operator API, as an operator would. */
export async function createPartner(t: TestApp, options: { usersApi?: boolean; name?: string } = {}) {
  const response = await fetch(`${t.baseUrl}/operator/v1/accounts`, {
    method: 'POST',
    headers: operatorHeaders(),
    body: JSON.stringify({
      name: options.name ?? 'Test partner',
      country: 'US',
      usersApi: options.usersApi ?? false,
    }),
  });
  if (response.status !== 200) throw new Error(`createPartner: ${response.status} ${await response.text()}`);
  return (await response.json()) as PartnerCredentials & { webhookSecret: string };
}

export interface SignedRequest {
  method?: string;
  /** Path and query as sent, without timestamp; it is appended unless `timestamp: null`. */
  path: string;
  body?: string | Buffer;
  timestamp?: number | string | null;
  /** Base URL used in the signed string; defaults to the test server's own. '' signs path-only. */
  signedBase?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export function sign(secret: string, url: string, body?: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(url, 'utf8');
  if (body !== undefined) mac.update(body);
  return mac.digest('hex');
}

export function withTimestamp(path: string, timestamp: number | string | null | undefined): string {
  if (timestamp === null) return path;
  return `${path}${path.includes('?') ? '&' : '?'}timestamp=${timestamp ?? Date.now()}`;
}

/** Sends a request signed exactly as Wyre clients sign: HMAC over URL-as-sent + raw body bytes. */
export async function signedFetch(t: TestApp, credentials: PartnerCredentials, request: SignedRequest) {
  const pathAndQuery = withTimestamp(request.path, request.timestamp);
  const signedBase = request.signedBase ?? t.baseUrl;
  const headers: Record<string, string> = {
    'x-api-key': credentials.apiKey,
    'x-api-signature': sign(credentials.secretKey, `${signedBase}${pathAndQuery}`, request.body),
    ...(request.body !== undefined ? { 'content-type': request.contentType ?? 'application/json' } : {}),
    ...request.headers,
  };
  return fetch(`${t.baseUrl}${pathAndQuery}`, {
    method: request.method ?? 'GET',
    headers,
    ...(request.body !== undefined ? { body: request.body as BodyInit } : {}),
  });
}

export async function bearerFetch(t: TestApp, secret: string, method: string, path: string, body?: unknown) {
  return fetch(`${t.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}
