import pino from 'pino';
import { expect } from 'vitest';
import { registerChainSettlers } from '../../src/chains/port.ts';
import { auditLedger, balancesOf } from '../../src/ledger/service.ts';
import { JobRunner } from '../../src/platform/jobs/runner.ts';
import { expireDueTransfers, registerTransferJobs } from '../../src/transfers/lifecycle.ts';
import { operatorHeaders, startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { asUser, createUser, TRANSFER_FIELDS } from '../users/support.ts';

export { asUser, TRANSFER_FIELDS };

export interface TransfersFixture {
  t: TestApp;
  partner: PartnerCredentials;
  /** Runs due jobs (chain settlements, the expiry sweep) as a worker would. */
  runJobs(): Promise<number>;
}

/** A sandbox app whose simulated chain settles at once, with a Users-API partner. */
export async function startTransfersApp(options: TestAppOptions = {}): Promise<TransfersFixture> {
  const t = await startTestApp({
    ...options,
    env: { RAMPART_SANDBOX_CHAIN_DELAY_MS: '0', ...options.env },
  });
  const partner = await createPartner(t, { usersApi: true });
  const runner = new JobRunner(t.database.db, pino({ level: 'silent' }), 1000);
  registerChainSettlers(runner, t.ctx);
  await registerTransferJobs(runner, t.ctx);
  return { t, partner, runJobs: () => runner.drain() };
}

/** A user whose TRANSFER scope is APPROVED (sandbox auto-approval), with deposit addresses on every chain. */
export async function approvedUser(t: TestApp, partner: PartnerCredentials): Promise<string> {
  const user = await createUser(t, partner, { fields: TRANSFER_FIELDS, blockchains: ['ALL'] });
  expect(user.scopes.TRANSFER?.status).toBe('APPROVED');
  return user.id;
}

/** Two approved users, alice holding `aliceUsd` USD: the payer and payee of most transfer tests. */
export async function aliceAndBob(t: TestApp, partner: PartnerCredentials, aliceUsd: string) {
  const alice = await approvedUser(t, partner);
  const bob = await approvedUser(t, partner);
  await credit(t, `user:${alice}`, 'USD', aliceUsd);
  return { alice, bob };
}

export async function depositAddresses(t: TestApp, partner: PartnerCredentials, userId: string) {
  const response = await asUser(t, partner, userId, 'GET', `/v3/users/${userId}`);
  return ((await response.json()) as { depositAddresses: Record<string, string> }).depositAddresses;
}

export function operator(
  t: TestApp,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return fetch(`${t.baseUrl}${path}`, {
    method,
    headers: { ...operatorHeaders(), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

export async function credit(t: TestApp, owner: string, currency: string, amount: string) {
  const response = await operator(t, 'POST', '/operator/v1/ledger/credits', { owner, currency, amount });
  expect(response.status, await response.clone().text()).toBe(200);
}

export async function advanceClock(t: TestApp, seconds: number) {
  const response = await operator(t, 'POST', '/operator/v1/sandbox/clock', { advanceSeconds: seconds });
  expect(response.status).toBe(200);
}

/** As the user (masqueradeAs=user:…) when `userId` is given, else as the partner itself. */
export function call(
  t: TestApp,
  partner: PartnerCredentials,
  userId: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const raw = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  if (userId) return asUser(t, partner, userId, method, path, raw, { headers });
  return signedFetch(t, partner, { method, path, ...(raw !== undefined ? { body: raw } : {}), headers });
}

export interface TransferBody {
  id: string;
  status: string;
  owner: string;
  source: string;
  dest: string;
  sourceCurrency: string;
  sourceAmount: number;
  destCurrency: string;
  destAmount: number;
  exchangeRate: number | null;
  fees: Record<string, number>;
  totalFees: number;
  message: string | null;
  customId: string | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  cancelledAt: number | null;
  expiresAt: number;
  failureReason: string | null;
  blockchainTx: Record<string, unknown> | null;
  statusHistories: { state: string; statusOrder: number; transferId: string }[];
}

export async function transfer(
  t: TestApp,
  partner: PartnerCredentials,
  userId: string | null,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await call(t, partner, userId, 'POST', '/v3/transfers', body, headers);
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as TransferBody & Record<string, unknown>, text };
}

export async function balances(t: TestApp, owner: string) {
  const { totalBalances, availableBalances } = await balancesOf(t.database.db, owner);
  const asText = (record: Record<string, { toFixed(): string }>) =>
    Object.fromEntries(Object.entries(record).map(([currency, amount]) => [currency, amount.toFixed()]));
  return { total: asText(totalBalances), available: asText(availableBalances) };
}

export async function expectLedgerSound(t: TestApp) {
  expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
}

/** What a refused request must leave as it was: everything but audit trails and consumed signatures. */
export function moneyState(t: TestApp) {
  return snapshotTables(t.database.db, ['operator_audit', 'access_audit', 'signature_replays']);
}

export { expireDueTransfers };
