import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { expect } from 'vitest';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { type PartnerCredentials, sign, signedFetch } from '../helpers/partner.ts';

/** Wyre's id alphabet (API.md conventions). */
export const ID = '[2-9A-HJ-NP-Z]';
export const ACCOUNT_ID = new RegExp(`^AC_${ID}{11}$`);
export const API_KEY = new RegExp(`^AK-${ID}{8}-${ID}{8}-${ID}{8}-${ID}{8}$`);
export const SECRET_KEY = new RegExp(`^SK-${ID}{8}-${ID}{8}-${ID}{8}-${ID}{8}$`);

/** A well-formed id that no test creates (ids are random; this one is fixed). */
export const unknownId = (prefix: string) => `${prefix}_${'Z'.repeat(4)}${'2'.repeat(7)}`;

export interface IdentityAppOptions extends TestAppOptions {
  /**
   * The test server's port is only known once it listens, so RAMPART_PUBLIC_URL cannot name it
   * up front. By default the loopback base URL is added to the configured public URLs right after
   * start, exactly as RAMPART_PUBLIC_URL=http://127.0.0.1:<port> would: URL-signing clients
   * (signedFetch's default, @wyre/api) then verify. False keeps only what the env configures.
   */
  loopbackPublicUrl?: boolean;
}

export async function startIdentityApp(options: IdentityAppOptions = {}): Promise<TestApp> {
  return startTestApp(options);
}

export interface Envelope {
  language: string;
  exceptionId: string;
  compositeType: string;
  subType: string;
  errorCode: string;
  message: string;
  type: string;
  transient: boolean;
  problematicField?: string;
}

/** Asserts the status and the Wyre envelope; returns it. */
export async function expectError(
  response: Response,
  status: number,
  type: string,
  extra: { errorCode?: string; problematicField?: string } = {},
): Promise<Envelope> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  const body = JSON.parse(text) as Envelope;
  expect(body).toMatchObject({ language: 'en', compositeType: '', subType: '', type, ...extra });
  expect(body.exceptionId).toMatch(/^test_[2-9A-HJ-NP-Z]{6}$/);
  expect(typeof body.message).toBe('string');
  expect(text).not.toMatch(/\bat .+\.ts:\d+/); // no stack trace
  return body;
}

/** The envelope without its per-request exceptionId: two refusals that must look alike compare equal. */
export function sameAnswer(body: Envelope): Omit<Envelope, 'exceptionId'> {
  const { exceptionId: _ignored, ...rest } = body;
  return rest;
}

export async function expectOk<T = Record<string, unknown>>(response: Response): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as T;
}

/**
 * Every table's rows. `operator_audit` is always left out (it records refusals by design); pass
 * `access_audit` where a denied masquerade is audited and `signature_replays` where a request
 * passed signature verification (its signature is consumed whatever happens next) and assert
 * those rows separately.
 */
export async function snapshot(t: TestApp, ignore: string[] = []) {
  return snapshotTables(t.database.db, ['operator_audit', ...ignore]);
}

export async function rows<T = Record<string, unknown>>(t: TestApp, sql: string, params: unknown[] = []) {
  const result = await t.database.db.query(sql, params);
  return result.rows as T[];
}

export async function countRows(t: TestApp, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await rows<{ n: string }>(t, `SELECT count(*) AS n FROM (${sql}) q`, params);
  return Number(row?.n);
}

/** The replay guard row of a signature that passed verification. */
export async function replayRecorded(t: TestApp, signature: string): Promise<boolean> {
  return (
    (await countRows(t, 'SELECT 1 FROM signature_replays WHERE signature = $1', [
      signature.toLowerCase(),
    ])) === 1
  );
}

/** A client-generated decentralized secret (spec §5.4.1): CSPRNG, printable, 32 characters. */
export const sessionSecret = () => randomBytes(24).toString('base64url');

export interface AccountView {
  id: string;
  status: string;
  type: string;
  country: string;
  createdAt: number;
  depositAddresses: Record<string, string>;
  totalBalances: Record<string, number>;
  availableBalances: Record<string, number>;
  profileFields: {
    fieldId: string;
    fieldType: string;
    value: unknown;
    note: string | null;
    status: string;
  }[];
}

export interface CreatedKey {
  apiKey: string;
  secretKey: string;
  owner: string;
  type: string;
  desc: string;
  ipWhitelist: string[];
}

export async function createSubaccount(
  t: TestApp,
  partner: PartnerCredentials,
  extra: Record<string, unknown> = {},
): Promise<AccountView> {
  const response = await signedFetch(t, partner, {
    method: 'POST',
    path: '/v3/accounts',
    body: JSON.stringify({ type: 'INDIVIDUAL', country: 'US', subaccount: true, ...extra }),
  });
  return expectOk<AccountView>(response);
}

export async function createKey(
  t: TestApp,
  partner: PartnerCredentials,
  body: Record<string, unknown> = {},
  masqueradeAs?: string,
): Promise<CreatedKey & { accountId: string }> {
  const path = masqueradeAs ? `/v2/apiKeys?masqueradeAs=${encodeURIComponent(masqueradeAs)}` : '/v2/apiKeys';
  const response = await signedFetch(t, partner, { method: 'POST', path, body: JSON.stringify(body) });
  const key = await expectOk<CreatedKey>(response);
  return { ...key, accountId: key.owner.replace(/^account:/, '') };
}

export interface RawSigned {
  apiKey: string;
  secret: string;
  method?: string;
  /** Path and query exactly as sent on the wire. */
  sent: string;
  /** The URL string signed; defaults to `sent` (path-only signing). */
  signedUrl?: string;
  body?: string | Buffer;
  /** Body bytes signed when they should differ from those sent. */
  signedBody?: string | Buffer;
  /** Sent instead of the computed signature (undefined = computed; null = no header). */
  signature?: string | null;
  headers?: Record<string, string>;
}

/** Full control over what is signed and what is sent, for the refusal cases. */
export async function rawSigned(t: TestApp, request: RawSigned) {
  const signature =
    request.signature === undefined
      ? sign(request.secret, request.signedUrl ?? request.sent, request.signedBody ?? request.body)
      : request.signature;
  const headers: Record<string, string> = {
    'x-api-key': request.apiKey,
    ...(signature === null ? {} : { 'x-api-signature': signature }),
    ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...request.headers,
  };
  const response = await fetch(`${t.baseUrl}${request.sent}`, {
    method: request.method ?? 'GET',
    headers,
    ...(request.body !== undefined ? { body: request.body as BodyInit } : {}),
  });
  return { response, signature: signature ?? '' };
}

/** True when something accepts TCP connections on host:port within a second. */
export function tcpReachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
