import pino from 'pino';
import { expect } from 'vitest';
import { JobRunner } from '../../src/platform/jobs/runner.ts';
import { registerUserJobs } from '../../src/users/jobs.ts';
import { operatorHeaders, startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';

export const USER_ID = /^US_[2-9A-HJ-NP-Z]{11}$/;

/** A field set that completes the TRANSFER scope. */
export const TRANSFER_FIELDS = {
  firstName: 'Deandre',
  lastName: 'Reynolds',
  dateOfBirth: '1990-01-01',
  residenceAddress: {
    street1: '1 Market St',
    city: 'San Francisco',
    state: 'CA',
    postalCode: '94105',
    country: 'US',
  },
};

/** A US checking account for POST /v2/paymentMethods; the routing number passes the ABA check. */
export const US_BANK_ACCOUNT = {
  paymentMethodType: 'LOCAL_TRANSFER',
  country: 'US',
  currency: 'USD',
  accountNumber: '000123456789',
  routingNumber: '021000021',
  accountType: 'CHECKING',
  firstNameOnAccount: 'Ada',
  lastNameOnAccount: 'Lovelace',
} as const;

export interface UserBody {
  id: string;
  status: string;
  partnerId: string;
  type: string;
  createdAt: number;
  depositAddresses: Record<string, string>;
  totalBalances: Record<string, number>;
  availableBalances: Record<string, number>;
  fields: Record<string, { value: unknown; status: string; error: string | null }>;
  scopes: Record<
    string,
    {
      status: string;
      openFields: string[];
      onboardingRequired: boolean;
      onboardingStatus: string;
      paymentMethodRequired: boolean;
    }
  >;
}

export interface UsersFixture {
  t: TestApp;
  partner: PartnerCredentials;
  other: PartnerCredentials;
}

export async function startUsersApp(options: TestAppOptions = {}): Promise<UsersFixture> {
  const t = await startTestApp(options);
  const partner = await createPartner(t, { usersApi: true });
  const other = await createPartner(t, { usersApi: true, name: 'Other partner' });
  return { t, partner, other };
}

const masquerade = (userId: string) => `masqueradeAs=${encodeURIComponent(`user:${userId}`)}`;

/** A signed call made as a user: `path` gets masqueradeAs=user:<userId> appended. */
export function asUser(
  t: TestApp,
  partner: PartnerCredentials,
  userId: string,
  method: string,
  path: string,
  body?: unknown,
  extra: { contentType?: string; headers?: Record<string, string> } = {},
) {
  const joined = `${path}${path.includes('?') ? '&' : '?'}${masquerade(userId)}`;
  const raw =
    body === undefined
      ? undefined
      : Buffer.isBuffer(body) || typeof body === 'string'
        ? body
        : JSON.stringify(body);
  return signedFetch(t, partner, { method, path: joined, body: raw, ...extra });
}

export async function createUser(t: TestApp, partner: PartnerCredentials, body: unknown = {}) {
  const response = await signedFetch(t, partner, {
    method: 'POST',
    path: '/v3/users',
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as UserBody;
}

export async function readUser(t: TestApp, partner: PartnerCredentials, userId: string, scopes?: string) {
  const response = await asUser(
    t,
    partner,
    userId,
    'GET',
    `/v3/users/${userId}${scopes ? `?scopes=${scopes}` : ''}`,
  );
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as UserBody;
}

export function operatorCall(t: TestApp, method: string, path: string, body?: unknown) {
  return fetch(`${t.baseUrl}${path}`, {
    method,
    headers: operatorHeaders(),
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/**
 * Every table except the audit trails and the signature replay guard (a signed request that
 * passed verification consumes its signature whatever happens next): the user's own state.
 */
export async function userState(t: TestApp) {
  const tables = await snapshotTables(t.database.db, [
    'operator_audit',
    'access_audit',
    'signature_replays',
    'user_documents',
  ]);
  // Document bytes are compared by digest: deep-comparing megabytes of Buffer is needlessly slow.
  const documents = await t.database.db.query(
    `SELECT id, user_id, partner_id, field_id, doc_type, media_type, size_bytes, sha256, created_at,
       encode(sha256(content), 'hex') AS content_digest
     FROM user_documents ORDER BY id`,
  );
  return { ...tables, user_documents: documents.rows };
}

/** Runs the Users module's queued jobs now, as a worker would. */
export async function runUserJobs(t: TestApp): Promise<number> {
  const runner = new JobRunner(t.database.db, pino({ level: 'silent' }), 1000);
  registerUserJobs(runner, t.ctx);
  return runner.drain();
}
