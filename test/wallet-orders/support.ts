import pino from 'pino';
import { expect } from 'vitest';
import { registerChainSettlers } from '../../src/chains/port.ts';
import { JobRunner } from '../../src/platform/jobs/runner.ts';
import { registerWalletOrderJobs } from '../../src/wallet-orders/worker.ts';
import { operatorHeaders, startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { ETH_ADDRESS, lockedBody, postSigned, reserve } from '../orders/support.ts';

export { ETH_ADDRESS, lockedBody, postSigned, reserve };

/** Env for card tests: the simulated chain settles at once. */
export const CARD_TEST_ENV = { RAMPART_SANDBOX_CHAIN_DELAY_MS: '0' };

export const CARDS = {
  approve: '4111111111111111',
  mastercard: '5200828282828210',
  decline: '4000000000000002',
  insufficient: '4000000000009995',
  codes: '4000000000001018',
  threeDs: '4000000000003220',
  avs: '4000000000000036',
  slow: '4000000000005050',
  credit: '4242424242424242',
  prepaid: '4600000000000006',
} as const;

/** A documented test card with any future expiry and any three-digit CVV (docs/sandbox-cards.md). */
export const testCard = (number: string) => ({ number, year: '2030', month: '01', cvv: '123' });

export const US_ADDRESS = {
  street1: '123 Test Ave',
  city: 'Portland',
  state: 'OR',
  postalCode: '97209',
  country: 'US',
};

/** A create-order body for a rate-locked reservation of lockedBody (100 USD + fees → ETH). */
export function orderBody(
  partner: PartnerCredentials,
  reservationId: string,
  amount: string,
  extra: Record<string, unknown> = {},
) {
  return {
    debitCard: testCard(CARDS.approve),
    reservationId,
    amount,
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
    dest: `ethereum:${ETH_ADDRESS}`,
    referrerAccountId: partner.accountId,
    givenName: 'Ada',
    familyName: 'Lovelace',
    email: 'ada@example.com',
    phone: '+14155550100',
    address: US_ADDRESS,
    ipAddress: '203.0.113.7',
    ...extra,
  };
}

export async function readQuoteTotal(t: TestApp, partner: PartnerCredentials, reservation: string) {
  const response = await signedFetch(t, partner, { path: `/v3/orders/reservation/${reservation}` });
  const body = (await response.json()) as { quote: { sourceAmount: number } };
  return String(body.quote.sourceAmount);
}

/** Reserves (rate-locked) and answers the reservation id with its exact total. */
export async function lockedReservation(
  t: TestApp,
  partner: PartnerCredentials,
  extra: Record<string, unknown> = {},
) {
  const amounts = 'destAmount' in extra ? { sourceAmount: undefined } : {};
  const { reservation } = await reserve(t, partner, lockedBody(partner, { ...amounts, ...extra }));
  return { reservation, amount: await readQuoteTotal(t, partner, reservation) };
}

export async function createOrder(t: TestApp, partner: PartnerCredentials, body: unknown) {
  const response = await postSigned(t, partner, '/v3/debitcard/process/partner', body);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Bearer-authenticated: concurrent identical requests would otherwise share a (replayed) signature. */
export async function createOrderBearer(t: TestApp, partner: PartnerCredentials, body: unknown) {
  const response = await bearerFetch(t, partner.secretKey, 'POST', '/v3/debitcard/process/partner', body);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function readOrder(t: TestApp, partner: PartnerCredentials, orderId: string) {
  const response = await signedFetch(t, partner, { path: `/v3/orders/${orderId}` });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * A worker over the test app's database: wallet-order jobs and the simulated chain.
 * `ordersPerTransaction`: its processing chunk, when not the service's.
 */
export function workerFor(t: TestApp, ordersPerTransaction?: number): JobRunner {
  const runner = new JobRunner(t.ctx.db, pino({ level: 'silent' }), 50);
  registerWalletOrderJobs(runner, t.ctx, ordersPerTransaction);
  registerChainSettlers(runner, t.ctx);
  return runner;
}

/**
 * A worker with the wallet-order jobs only: it takes cleared orders to PROCESSING and queues
 * their chain sends, which stay queued (nothing settles them) until workerFor drains.
 */
export function processingWorkerFor(t: TestApp, ordersPerTransaction?: number): JobRunner {
  const runner = new JobRunner(t.ctx.db, pino({ level: 'silent' }), 50);
  registerWalletOrderJobs(runner, t.ctx, ordersPerTransaction);
  return runner;
}

/** The state of an order's card hold on the ledger (pending, posted or voided). */
export async function cardHoldState(t: TestApp, orderId: string): Promise<string | undefined> {
  const { rows } = await t.database.db.query<{ state: string }>(
    `SELECT h.state FROM ledger_holds h JOIN wallet_orders o ON o.hold_id = h.id WHERE o.id = $1`,
    [orderId],
  );
  return rows[0]?.state;
}

/** The state of an order's authorization at the sandbox processor. */
export async function sandboxAuthorizationState(t: TestApp, orderId: string): Promise<string | undefined> {
  const { rows } = await t.database.db.query<{ state: string }>(
    'SELECT state FROM sandbox_card_authorizations WHERE order_id = $1',
    [orderId],
  );
  return rows[0]?.state;
}

export async function setLimits(t: TestApp, accountId: string, body: unknown) {
  const response = await fetch(`${t.baseUrl}/operator/v1/accounts/${accountId}/card-limits`, {
    method: 'PUT',
    headers: operatorHeaders(),
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

/** A partner whose card limits leave room for many orders from the one test address. */
export async function roomyPartner(t: TestApp, name = 'Test partner') {
  const partner = await createPartner(t, { name });
  await setLimits(t, partner.accountId, {
    STANDARD: { daily: '100000', weekly: '100000', yearly: '100000' },
  });
  return partner;
}

export interface CardOrderFixture {
  t: TestApp;
  partner: PartnerCredentials;
}

/** An app for card tests (CARD_TEST_ENV, then `options.env`) with a roomyPartner. */
export async function startCardOrderApp(options: TestAppOptions = {}): Promise<CardOrderFixture> {
  const t = await startTestApp({ ...options, env: { ...CARD_TEST_ENV, ...options.env } });
  return { t, partner: await roomyPartner(t) };
}

/** startCardOrderApp with the partner's order webhook registered (to a port nothing listens on). */
export async function startCardOrderAppWithWebhook(options: TestAppOptions = {}): Promise<CardOrderFixture> {
  const fixture = await startCardOrderApp(options);
  const hook = await postSigned(fixture.t, fixture.partner, '/v2/digitalwallet/webhook', {
    owner: `account:${fixture.partner.accountId}`,
    webhook: 'http://127.0.0.1:9/wallet-orders',
  });
  expect(hook.status).toBe(200);
  return fixture;
}

/**
 * An order paid with test card `number` on a fresh locked reservation (`extra`: more of the
 * order's fields); answers the API's answer as it came, with the reservation and amount.
 */
export async function orderWithCard(
  t: TestApp,
  partner: PartnerCredentials,
  number: string,
  extra: Record<string, unknown> = {},
) {
  const { reservation, amount } = await lockedReservation(t, partner);
  const body = orderBody(partner, reservation, amount, { debitCard: testCard(number), ...extra });
  return { ...(await createOrder(t, partner, body)), reservation, amount };
}

/** Balances of every ledger owner, as text, zero rows left out. */
export async function nonZeroBalances(t: TestApp) {
  const { rows } = await t.database.db.query<{
    owner: string;
    currency: string;
    total: string;
    available: string;
  }>(
    `SELECT owner, currency, sum(total)::text AS total, sum(available)::text AS available FROM ledger_balances
     GROUP BY owner, currency HAVING sum(total) <> 0 OR sum(available) <> 0 ORDER BY owner, currency`,
  );
  return rows;
}

/**
 * Runs `body` while PostgreSQL refuses every row inserted into `table` for which `condition`
 * (SQL over NEW) holds: a rule the service does not know, to make one order of a group or batch
 * fail where the service cannot foresee it. The trigger is gone afterwards, whatever happened.
 */
export async function whileRefusingInserts(
  t: TestApp,
  table: string,
  condition: string,
  body: () => Promise<void>,
): Promise<void> {
  const name = `refuse_${table}_in_test`;
  await t.database.db.query(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF ${condition} THEN RAISE EXCEPTION 'refused by test trigger on ${table}'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}();`);
  try {
    await body();
  } finally {
    await t.database.db.query(`DROP TRIGGER ${name} ON ${table}; DROP FUNCTION ${name}();`);
  }
}
