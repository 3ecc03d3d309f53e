import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RampartClient } from '../../sdk/src/index.js';
import {
  SANDBOX_BANK_FAILURE,
  SANDBOX_BANK_RETURN,
  SANDBOX_FAILING_BANK_ACCOUNT,
  SANDBOX_RETURNED_BANK_ACCOUNT,
} from '../../src/transfers/sandbox-bank.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { expectError, expectOk } from '../identity/support.ts';
import { createUser, runUserJobs, TRANSFER_FIELDS, US_BANK_ACCOUNT } from '../users/support.ts';
import {
  approvedUser,
  asUser,
  balances,
  credit,
  expectLedgerSound,
  moneyState,
  startTransfersApp,
  type TransferBody,
  transfer,
} from './support.ts';

/**
 * Bank payouts to `paymentmethod:PA_…` and ACH pulls from `paymentmethod:PA_…:ach` through the
 * sandbox bank rail (docs/contract.md decisions 54 to 59), end to end: HTTP in, the rail's job,
 * the ledger after.
 */
let t: TestApp;
let partner: PartnerCredentials;
let runJobs: () => Promise<number>;
let client: RampartClient;
const account = () => `account:${partner.accountId}`;

beforeAll(async () => {
  ({ t, partner, runJobs } = await startTransfersApp());
  client = new RampartClient({
    baseUrl: t.baseUrl,
    auth: { type: 'signature', apiKey: partner.apiKey, secretKey: partner.secretKey },
  });
});
afterAll(async () => t?.close());

/** An ACTIVE method of the calling account (or of `userId`), with this account number. */
async function activeMethod(accountNumber = '000123456789', userId?: string): Promise<string> {
  const body = { ...US_BANK_ACCOUNT, accountNumber };
  const response = userId
    ? await asUser(t, partner, userId, 'POST', '/v2/paymentMethods', body)
    : await signedFetch(t, partner, {
        method: 'POST',
        path: '/v2/paymentMethods',
        body: JSON.stringify(body),
      });
  const { id } = await expectOk<{ id: string }>(response);
  await runUserJobs(t);
  return id;
}

/**
 * A user whose ACH scope is APPROVED (TRANSFER approved, an ACTIVE method, the hosted onboarding
 * submitted, which sandbox completes at once), with that method.
 */
async function achUser(accountNumber: string): Promise<{ user: string; method: string }> {
  const { id: user } = await createUser(t, partner, { fields: TRANSFER_FIELDS, scopes: ['TRANSFER', 'ACH'] });
  const method = await activeMethod(accountNumber, user);
  const link = await expectOk<{ verificationLinkUrl: string }>(
    await asUser(t, partner, user, 'GET', `/v3/users/${user}/onboarding`),
  );
  const submitted = await fetch(`${t.baseUrl}${new URL(link.verificationLinkUrl).pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  expect(submitted.status).toBe(200);
  const read = await expectOk<{ scopes: Record<string, { status: string }> }>(
    await asUser(t, partner, user, 'GET', `/v3/users/${user}`),
  );
  expect(read.scopes.ACH?.status).toBe('APPROVED');
  return { user, method };
}

const total = async (owner: string) => (await balances(t, owner)).total.USD ?? '0';
const available = async (owner: string) => (await balances(t, owner)).available.USD ?? '0';

describe('a bank payout (dest paymentmethod:PA_…)', () => {
  it('holds the source while PENDING, then settles to external:bank when the bank does', async () => {
    await credit(t, account(), 'USD', '500');
    const method = await activeMethod();
    const bankBefore = await total('external:bank');
    const created = await client.transfers.create({
      source: account(),
      sourceCurrency: 'USD',
      sourceAmount: '200',
      dest: `paymentmethod:${method}`,
      destCurrency: 'USD',
      message: 'Sending the user payment method',
      autoConfirm: true,
    });
    expect(created).toMatchObject({ status: 'PENDING', dest: `paymentmethod:${method}`, source: account() });
    // Held, not gone: available drops, total does not.
    expect(await total(account())).toBe('500');
    expect(await available(account())).toBe('300');
    expect(await runJobs()).toBeGreaterThan(0);
    const done = await client.transfers.get(created.id);
    expect(done.status).toBe('COMPLETED');
    expect(done.completedAt).not.toBeNull();
    expect(done.statusHistories.map((h) => h.state)).toEqual(['INITIATED', 'PENDING', 'COMPLETED']);
    expect(await total(account())).toBe('300');
    expect(await available(account())).toBe('300');
    const paidOut = Number(await total('external:bank')) - Number(bankBefore);
    expect(paidOut.toFixed(2)).toBe(Number(done.destAmount).toFixed(2));
    await expectLedgerSound(t);
  });

  it('UNCONFIRMED then confirmed: the hold stays until the bank answers', async () => {
    await credit(t, account(), 'USD', '100');
    const before = await available(account());
    const method = await activeMethod();
    const created = await client.transfers.create({
      sourceCurrency: 'USD',
      sourceAmount: '50',
      dest: `paymentMethod:${method}`,
      destCurrency: 'USD',
    });
    expect(created.status).toBe('UNCONFIRMED');
    expect(created.dest).toBe(`paymentmethod:${method}`);
    const confirmed = await client.transfers.confirm(created.id);
    expect(confirmed.status).toBe('PENDING');
    expect(Number(await available(account()))).toBe(Number(before) - 50);
    await runJobs();
    expect((await client.transfers.get(created.id)).status).toBe('COMPLETED');
    await expectLedgerSound(t);
  });

  it('FAILED with the funds released when the bank refuses (documented failing account)', async () => {
    await credit(t, account(), 'USD', '80');
    const totalBefore = await total(account());
    const method = await activeMethod(SANDBOX_FAILING_BANK_ACCOUNT);
    const created = await client.transfers.create({
      sourceCurrency: 'USD',
      sourceAmount: '80',
      dest: `paymentmethod:${method}`,
      destCurrency: 'USD',
      autoConfirm: true,
    });
    await runJobs();
    const failed = await client.transfers.get(created.id);
    expect(failed).toMatchObject({ status: 'FAILED', failureReason: SANDBOX_BANK_FAILURE });
    expect(await total(account())).toBe(totalBefore);
    expect(await available(account())).toBe(totalBefore);
    await expectLedgerSound(t);
  });

  it('a wire returned after it settled gives the source everything back (REVERSED)', async () => {
    await credit(t, account(), 'USD', '40');
    const totalBefore = await total(account());
    const method = await activeMethod(SANDBOX_RETURNED_BANK_ACCOUNT);
    const created = await client.transfers.create({
      sourceCurrency: 'USD',
      sourceAmount: '40',
      dest: `paymentmethod:${method}`,
      destCurrency: 'USD',
      autoConfirm: true,
    });
    await runJobs();
    const reversed = await client.transfers.get(created.id);
    expect(reversed).toMatchObject({
      status: 'REVERSED',
      reversalReason: SANDBOX_BANK_RETURN,
      failureReason: null,
    });
    expect(reversed.statusHistories.map((h) => h.state)).toEqual([
      'INITIATED',
      'PENDING',
      'COMPLETED',
      'REVERSED',
    ]);
    expect(await total(account())).toBe(totalBefore);
    await expectLedgerSound(t);
  });

  it('refuses a method that is not ACTIVE, in another currency, or unknown, moving nothing', async () => {
    const pending = await expectOk<{ id: string }>(
      await signedFetch(t, partner, {
        method: 'POST',
        path: '/v2/paymentMethods',
        body: JSON.stringify(US_BANK_ACCOUNT),
      }),
    );
    const attempt = (dest: string, destCurrency = 'USD') =>
      transfer(t, partner, null, {
        sourceCurrency: 'USD',
        sourceAmount: '1',
        dest,
        destCurrency,
        autoConfirm: true,
      });
    const other = await createPartner(t, { name: 'Other partner' });
    const theirs = await expectOk<{ id: string }>(
      await signedFetch(t, other, {
        method: 'POST',
        path: '/v2/paymentMethods',
        body: JSON.stringify(US_BANK_ACCOUNT),
      }),
    );
    const before = await moneyState(t);
    const notActive = await attempt(`paymentmethod:${pending.id}`);
    expect(notActive.status, notActive.text).toBe(400);
    expect(notActive.body).toMatchObject({ errorCode: 'validation.paymentMethodNotActive' });
    const unknown = await attempt('paymentmethod:PA_ZZZZ2222222');
    expect(unknown.body).toMatchObject({ errorCode: 'validation.unknownPaymentMethod' });
    // Another partner's method is as unknown as one that never existed.
    const crossPartner = await attempt(`paymentmethod:${theirs.id}`);
    expect(crossPartner.status, crossPartner.text).toBe(400);
    expect(crossPartner.body).toMatchObject({ errorCode: 'validation.unknownPaymentMethod' });
    const ach = await attempt(`paymentmethod:${pending.id}:ach`);
    expect(ach.status).toBe(400);
    expect(ach.body).toMatchObject({ problematicField: 'dest' });
    // Drain the verification so the state compared is the same.
    await runUserJobs(t);
    const active = await attempt(`paymentmethod:${pending.id}`, 'BTC');
    expect(active.body).toMatchObject({ errorCode: 'validation.unsupportedCurrency' });
    const after = await moneyState(t);
    expect({ ...after, payment_methods: [], jobs: [] }).toEqual({ ...before, payment_methods: [], jobs: [] });
  });
});

describe('an ACH pull (source paymentmethod:PA_…:ach)', () => {
  it('lands pending (in total, not available), then settles', async () => {
    const { user, method } = await achUser('000555555555');
    const created = await transfer(t, partner, user, {
      source: `paymentmethod:${method}:ach`,
      sourceCurrency: 'USD',
      sourceAmount: '100',
      dest: `user:${user}`,
      destCurrency: 'USD',
      autoConfirm: true,
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ status: 'PENDING', source: `paymentmethod:${method}:ach` });
    const arriving = created.body.destAmount.toString();
    expect(Number(await total(`user:${user}`))).toBe(Number(arriving));
    expect(await available(`user:${user}`)).toBe('0');
    // Pending funds cannot be spent.
    const spend = await transfer(t, partner, user, {
      sourceCurrency: 'USD',
      sourceAmount: '1',
      dest: account(),
      autoConfirm: true,
    });
    expect(spend.body).toMatchObject({ type: 'InsufficientFundsException' });
    await runJobs();
    const settled = await expectOk<TransferBody>(
      await asUser(t, partner, user, 'GET', `/v3/transfers/${created.body.id}`),
    );
    expect(settled.status).toBe('COMPLETED');
    expect(Number(await available(`user:${user}`))).toBe(Number(arriving));
    await expectLedgerSound(t);
  });

  it('a failed pull takes the pending funds back, leaving the balance at zero', async () => {
    const { user, method } = await achUser(SANDBOX_FAILING_BANK_ACCOUNT);
    const created = await transfer(t, partner, user, {
      source: `paymentmethod:${method}:ach`,
      sourceCurrency: 'USD',
      sourceAmount: '70',
      dest: `user:${user}`,
      autoConfirm: true,
    });
    expect(created.status, created.text).toBe(200);
    await runJobs();
    const failed = await expectOk<TransferBody>(
      await asUser(t, partner, user, 'GET', `/v3/transfers/${created.body.id}`),
    );
    expect(failed).toMatchObject({ status: 'FAILED', failureReason: SANDBOX_BANK_FAILURE });
    expect(await balances(t, `user:${user}`)).toEqual({ total: { USD: '0' }, available: { USD: '0' } });
    await expectLedgerSound(t);
  });

  it('a return after settlement takes what is left and books the rest to house:bank-returns', async () => {
    const { user, method } = await achUser(SANDBOX_RETURNED_BANK_ACCOUNT);
    const created = await transfer(t, partner, user, {
      source: `paymentmethod:${method}:ach`,
      sourceCurrency: 'USD',
      sourceAmount: '100',
      dest: `user:${user}`,
      destCurrency: 'USD',
    });
    expect(created.body.status).toBe('UNCONFIRMED');
    const confirmed = await asUser(t, partner, user, 'POST', `/v3/transfers/${created.body.id}/confirm`);
    expect((await expectOk<TransferBody>(confirmed)).status).toBe('PENDING');
    const returnsBefore = Number((await balances(t, 'house:bank-returns')).total.USD ?? '0');
    await runJobs();
    const reversed = await expectOk<TransferBody & { reversalReason: string }>(
      await asUser(t, partner, user, 'GET', `/v3/transfers/${created.body.id}`),
    );
    expect(reversed).toMatchObject({ status: 'REVERSED', reversalReason: SANDBOX_BANK_RETURN });
    expect(Number(await total(`user:${user}`))).toBe(0);
    expect(Number((await balances(t, 'house:bank-returns')).total.USD ?? '0')).toBe(returnsBefore);
    await expectLedgerSound(t);
  });

  it('a return after the funds were spent: the dest goes to zero, never below, the rest to house:bank-returns', async () => {
    const { user, method } = await achUser(SANDBOX_RETURNED_BANK_ACCOUNT);
    // The job runs both reports at once, so settle it by hand in between: the rail's settle is
    // the first report, the spend, then the return.
    const { onBankOutcome } = await import('../../src/transfers/bank-transfers.ts');
    const { withTransaction } = await import('../../src/platform/db/pool.ts');
    const created = await transfer(t, partner, user, {
      source: `paymentmethod:${method}:ach`,
      sourceCurrency: 'USD',
      sourceAmount: '100',
      dest: `user:${user}`,
      autoConfirm: true,
    });
    const reference = `transfer:${created.body.id}`;
    await withTransaction(t.database.db, (tx) => onBankOutcome(t.ctx, tx, { reference, status: 'SETTLED' }));
    const arrived = Number(await available(`user:${user}`));
    const spent = await transfer(t, partner, user, {
      sourceCurrency: 'USD',
      sourceAmount: '60',
      amountIncludesFees: true,
      dest: account(),
      autoConfirm: true,
    });
    expect(spent.status, spent.text).toBe(200);
    const left = Number(await available(`user:${user}`));
    const returnsBefore = Number((await balances(t, 'house:bank-returns')).total.USD ?? '0');
    await withTransaction(t.database.db, (tx) =>
      onBankOutcome(t.ctx, tx, { reference, status: 'RETURNED', reason: 'R01 insufficient funds' }),
    );
    expect(await balances(t, `user:${user}`)).toEqual({ total: { USD: '0' }, available: { USD: '0' } });
    const returnsAfter = Number((await balances(t, 'house:bank-returns')).total.USD ?? '0');
    expect((returnsBefore - returnsAfter).toFixed(2)).toBe((arrived - left).toFixed(2));
    // Reported twice (a retried job): nothing more moves.
    await withTransaction(t.database.db, (tx) => onBankOutcome(t.ctx, tx, { reference, status: 'RETURNED' }));
    expect(Number((await balances(t, 'house:bank-returns')).total.USD ?? '0')).toBe(returnsAfter);
    await runJobs();
    await expectLedgerSound(t);
  });

  it('only the method’s owner may pull from it, and only into a balance', async () => {
    const { user: owner, method } = await achUser('000666666666');
    const stranger = await approvedUser(t, partner);
    const before = await moneyState(t);
    const notOwner = await transfer(t, partner, stranger, {
      source: `paymentmethod:${method}:ach`,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: `user:${stranger}`,
      autoConfirm: true,
    });
    expect(notOwner.status, notOwner.text).toBe(403);
    const toChain = await transfer(t, partner, owner, {
      source: `paymentmethod:${method}:ach`,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: 'paymentmethod:PA_ZZZZ2222222',
      autoConfirm: true,
    });
    expect(toChain.status).toBe(400);
    expect(toChain.body).toMatchObject({ problematicField: 'dest' });
    expect(await moneyState(t)).toEqual(before);
  });

  it('a user’s method is pulled from only once the user’s ACH scope is APPROVED', async () => {
    const user = await approvedUser(t, partner);
    const method = await activeMethod('000888888888', user);
    const before = await moneyState(t);
    const refused = await transfer(t, partner, user, {
      source: `paymentmethod:${method}:ach`,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: `user:${user}`,
      autoConfirm: true,
    });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body).toMatchObject({ errorCode: 'accessDenied.scopeNotApproved' });
    expect(await moneyState(t)).toEqual(before);
  });
});

describe('callbacks of bank transfers', () => {
  it('are queued as for other transfers: notifyUrl and subscriptions to the method', async () => {
    const { user, method } = await achUser('000777777777');
    const subscribed = await asUser(t, partner, user, 'POST', '/v3/subscriptions', {
      subscribeTo: `user:${user}`,
      notifyTarget: 'http://127.0.0.1:9/subscribed',
    });
    expect(subscribed.status, await subscribed.clone().text()).toBe(200);
    const created = await transfer(t, partner, user, {
      source: `paymentmethod:${method}:ach`,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: `user:${user}`,
      notifyUrl: 'http://127.0.0.1:9/callbacks',
      autoConfirm: true,
    });
    expect(created.status, created.text).toBe(200);
    const { rows } = await t.database.db.query(
      'SELECT trigger, url FROM callback_deliveries WHERE trigger = $1 ORDER BY url',
      [`transfer:${created.body.id}`],
    );
    expect(rows).toEqual([
      { trigger: `transfer:${created.body.id}`, url: 'http://127.0.0.1:9/callbacks' },
      { trigger: `transfer:${created.body.id}`, url: 'http://127.0.0.1:9/subscribed' },
    ]);
    // The account number is in no job, no callback, no transfer.
    const { rows: jobs } = await t.database.db.query('SELECT payload::text AS p FROM jobs');
    expect(jobs.map((job) => job.p).join('\n')).not.toContain('000777777777');
    await runJobs();
  });
});

describe('production without a bank rail', () => {
  let prod: TestApp;
  let prodPartner: PartnerCredentials;

  beforeAll(async () => {
    prod = await startTestApp({ ports: { bankTransfers: undefined } });
    prodPartner = await createPartner(prod);
  });
  afterAll(async () => prod?.close());

  it('refuses payouts and pulls with 503 naming the missing rail', async () => {
    for (const parties of [
      { dest: 'paymentmethod:PA_ZZZZ2222222' },
      { source: 'paymentmethod:PA_ZZZZ2222222:ach', dest: `account:${prodPartner.accountId}` },
    ]) {
      const body = await expectError(
        await signedFetch(prod, prodPartner, {
          method: 'POST',
          path: '/v3/transfers',
          body: JSON.stringify({ ...parties, sourceCurrency: 'USD', sourceAmount: '5', autoConfirm: true }),
        }),
        503,
        'ServiceUnavailableException',
        { errorCode: 'transfer.bankUnavailable' },
      );
      expect(body.message).toContain('bankTransfers');
    }
  });
});
