import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLedger } from '../../src/ledger/service.ts';
import { findReservationById } from '../../src/orders/store.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  CARDS,
  createOrderBearer,
  ETH_ADDRESS,
  lockedReservation,
  orderBody,
  readOrder,
  reserve,
  roomyPartner,
  setLimits,
  startCardOrderApp,
  testCard,
  US_ADDRESS,
  whileRefusingInserts,
  workerFor,
} from './support.ts';

/**
 * Orders without an Idempotency-Key are placed together (src/wallet-orders/order-groups.ts):
 * concurrent requests share one transaction. These tests send real parallel requests and check
 * that each order still gets exactly the answer it would get alone, and that a refused order of a
 * group leaves nothing behind.
 */

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp());
});
afterAll(async () => t.close());

/** Reservations one after another: identical signed requests at once would share a signature. */
async function lockedReservations(owner: PartnerCredentials, n: number) {
  const made: { reservation: string; amount: string }[] = [];
  for (let index = 0; index < n; index++) made.push(await lockedReservation(t, owner));
  return made;
}

/** A Luhn-valid debit card on the approve card's BIN 411111, different for each `n`. */
function approveCard(n: number): string {
  const body = `411111${String(n).padStart(9, '0')}`;
  let sum = 0;
  for (let index = 0; index < body.length; index++) {
    let digit = Number(body[body.length - 1 - index]);
    if (index % 2 === 0) digit *= 2;
    sum += digit > 9 ? digit - 9 : digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** An order body with its own card and its own billing address, so it shares no spend key. */
function ownOrder(owner: PartnerCredentials, reservation: string, amount: string, n: number, card?: string) {
  return orderBody(owner, reservation, amount, {
    debitCard: testCard(card ?? approveCard(n)),
    address: { ...US_ADDRESS, street1: `${100 + n} Group Street` },
  });
}

/** The order ids of each processing job that names any of `orderIds`. */
async function processingJobsNaming(orderIds: string[]): Promise<string[][]> {
  const { rows } = await t.database.db.query<{ ids: string[] }>(
    `SELECT ARRAY(SELECT jsonb_array_elements_text(payload->'orderIds')) AS ids FROM jobs
     WHERE kind = 'walletOrders.process' AND payload->'orderIds' ?| $1::text[]`,
    [orderIds],
  );
  return rows.map((row) => row.ids);
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await t.database.db.query<{ n: number }>(sql, params);
  return rows[0]!.n;
}

describe('card orders placed together', () => {
  it('answers each order of a burst as it would alone, and a refused one leaves nothing behind', async () => {
    const tight = await createPartner(t, { name: 'Tight limits' });
    await setLimits(t, tight.accountId, { STANDARD: { daily: '50', weekly: '50', yearly: '50' } });
    const used = await lockedReservation(t, partner);
    const first = await createOrderBearer(t, partner, ownOrder(partner, used.reservation, used.amount, 900));
    expect(first.status).toBe(200);

    const approved = await lockedReservations(partner, 30);
    const refused = {
      declined: await lockedReservation(t, partner),
      mismatch: await lockedReservation(t, partner),
      limit: await lockedReservation(t, tight),
    };
    const steps = {
      codes: await lockedReservation(t, partner),
      threeDs: await lockedReservation(t, partner),
    };
    const slow = await lockedReservation(t, partner);
    const unlocked = await reserve(t, partner, {
      amount: '50',
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      dest: `ethereum:${ETH_ADDRESS}`,
      referrerAccountId: partner.accountId,
      country: 'US',
    });

    const burst = await Promise.all([
      ...approved.map((r, n) => createOrderBearer(t, partner, ownOrder(partner, r.reservation, r.amount, n))),
      createOrderBearer(t, partner, ownOrder(partner, used.reservation, used.amount, 901)),
      createOrderBearer(
        t,
        partner,
        ownOrder(partner, refused.declined.reservation, refused.declined.amount, 902, CARDS.decline),
      ),
      createOrderBearer(t, partner, ownOrder(partner, refused.mismatch.reservation, '1.00', 903)),
      createOrderBearer(t, tight, ownOrder(tight, refused.limit.reservation, refused.limit.amount, 904)),
      createOrderBearer(
        t,
        partner,
        ownOrder(partner, steps.codes.reservation, steps.codes.amount, 905, CARDS.codes),
      ),
      createOrderBearer(
        t,
        partner,
        ownOrder(partner, steps.threeDs.reservation, steps.threeDs.amount, 906, CARDS.threeDs),
      ),
      createOrderBearer(t, partner, ownOrder(partner, slow.reservation, slow.amount, 907, CARDS.slow)),
      createOrderBearer(t, partner, ownOrder(partner, unlocked.reservation, '60', 908)),
    ]);
    const [usedAgain, declined, mismatch, limit, codes, threeDs, slowAnswer, unlockedAnswer] =
      burst.slice(30);

    for (const answer of burst.slice(0, 30)) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toMatchObject({ status: 'RUNNING_CHECKS', authCodesRequested: false });
    }
    expect(usedAgain!.body.errorCode).toBe('illegalReservation');
    expect(declined!.body.errorCode).toBe('validation.cardDeclined');
    expect(mismatch!.body.errorCode).toBe('validation.amountMismatch');
    expect(limit!.body.errorCode).toBe('limits.dailyLimitReached');
    expect(codes!.body).toMatchObject({ status: 'RUNNING_CHECKS', authCodesRequested: true });
    expect(threeDs!.body).toMatchObject({ status: 'RUNNING_CHECKS', authCodesRequested: true });
    // The slow card outlasts the group's wait for the processor and is placed alone.
    expect(slowAnswer!.status, JSON.stringify(slowAnswer!.body)).toBe(200);
    // No locked rate: quoted outside any transaction, then placed alone.
    expect(unlockedAnswer!.body).toMatchObject({ status: 'RUNNING_CHECKS', sourceAmount: 60 });

    const placed = burst.filter((answer) => answer.status === 200).map((answer) => answer.body.id as string);
    expect(placed).toHaveLength(34);
    // Orders of one transaction share its xmin: the 30 plain orders did not each take their own.
    const transactions = await count(
      'SELECT count(DISTINCT xmin::text)::int AS n FROM wallet_orders WHERE id = ANY($1::text[])',
      [placed.slice(0, 30)],
    );
    expect(transactions).toBeLessThan(30);
    // …and share their processing jobs: each order named by exactly one job, fewer jobs than orders.
    const jobs = await processingJobsNaming(placed.slice(0, 30));
    expect(jobs.flat().sort()).toEqual(placed.slice(0, 30).sort());
    expect(jobs.length).toBeLessThan(30);

    // The refused orders' reservations stay usable; each placed order has its spend, card
    // authorization and hold, and nothing else exists.
    const refusedReservations = [refused.declined, refused.mismatch, refused.limit].map((r) => r.reservation);
    for (const reservation of refusedReservations)
      expect(await findReservationById(t.database.db, reservation)).toMatchObject({ used: false });
    const all = [first.body.id as string, ...placed];
    expect(await count('SELECT count(*)::int AS n FROM wallet_orders', [])).toBe(all.length);
    expect(await count('SELECT count(DISTINCT order_id)::int AS n FROM card_spend', [])).toBe(all.length);
    expect(
      await count('SELECT count(*)::int AS n FROM card_spend WHERE NOT (order_id = ANY($1::text[]))', [all]),
    ).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM sandbox_card_authorizations', [])).toBe(all.length);
    expect(await count("SELECT count(*)::int AS n FROM ledger_holds WHERE state = 'pending'", [])).toBe(
      all.length,
    );
    expect(await auditLedger(t.ctx.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('processes the orders of a shared job each alone when the job fails, so one bad order holds up no other', async () => {
    const other = await roomyPartner(t, 'Shared processing job');
    const stuckDest = 'ethereum:0x00000000000000000000000000000000000000b0';
    // A rule the service does not know: PostgreSQL refuses a chain send to this address.
    const stuckAddress = stuckDest.slice('ethereum:'.length);
    await whileRefusingInserts(t, 'chain_sends', `NEW.address = '${stuckAddress}'`, async () => {
      const reservations = await lockedReservations(other, 11);
      reservations.push(await lockedReservation(t, other, { dest: stuckDest }));
      const answers = await Promise.all(
        reservations.map((r, n) =>
          createOrderBearer(t, other, {
            ...ownOrder(other, r.reservation, r.amount, 700 + n),
            ...(n === 11 ? { dest: stuckDest } : {}),
          }),
        ),
      );
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const ids = answers.map((answer) => answer.body.id as string);
      const stuck = ids[11]!;
      expect((await processingJobsNaming([stuck]))[0]!.length).toBeGreaterThan(1);

      await workerFor(t).drain();
      for (const id of ids.slice(0, 11)) expect((await readOrder(t, other, id)).status, id).toBe('COMPLETE');
      expect(await readOrder(t, other, stuck)).toMatchObject({ status: 'RUNNING_CHECKS', transferId: null });
      // The stuck order's job failed once and waits to be tried again.
      expect(
        await count(
          `SELECT count(*)::int AS n FROM jobs WHERE kind = 'walletOrders.process' AND state = 'pending'
             AND attempts = 1 AND payload->'orderIds' ? $1`,
          [stuck],
        ),
      ).toBe(1);
    });
    expect(await auditLedger(t.ctx.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('places every order of a group alone when PostgreSQL refuses the group, and only the bad one fails', async () => {
    const other = await roomyPartner(t, 'Refused group');
    // A database rule the service does not know: an order with this e-mail is refused by
    // PostgreSQL, which takes the whole group's statement down with it.
    await whileRefusingInserts(t, 'wallet_orders', `NEW.email = 'refuse@example.com'`, async () => {
      const reservations = await lockedReservations(other, 12);
      const answers = await Promise.all(
        reservations.map((r, n) =>
          createOrderBearer(t, other, {
            ...ownOrder(other, r.reservation, r.amount, 500 + n),
            ...(n === 5 ? { email: 'refuse@example.com' } : {}),
          }),
        ),
      );
      answers.forEach((answer, n) => {
        expect(answer.status, JSON.stringify(answer.body)).toBe(n === 5 ? 500 : 200);
      });
      expect(await findReservationById(t.database.db, reservations[5]!.reservation)).toMatchObject({
        used: false,
      });
    });
  });
});

describe('closing the app', () => {
  it('gives back the connections of the transactions begun ahead for the next groups', async () => {
    const own = await startCardOrderApp();
    const idleInTransaction = async () => {
      const { rows } = await own.t.database.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND state = 'idle in transaction'`,
      );
      return rows[0]!.n;
    };
    try {
      const r = await lockedReservation(own.t, own.partner);
      const placed = await createOrderBearer(
        own.t,
        own.partner,
        ownOrder(own.partner, r.reservation, r.amount, 1),
      );
      expect(placed.status).toBe(200);
      // The groups after this one have their BEGIN sent already.
      expect(await idleInTransaction()).toBeGreaterThan(0);
      await own.t.app.close();
      expect(await idleInTransaction()).toBe(0);
    } finally {
      await own.t.database.drop();
    }
  });
});
