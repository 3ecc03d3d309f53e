import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderErrors } from '../../src/orders/errors.ts';
import { consumeReservation } from '../../src/orders/service.ts';
import { findReservationById } from '../../src/orders/store.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase } from '../helpers/db.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { lockedBody, masterScope, readReservation, reserve } from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;

beforeAll(async () => {
  // 50 transactions must really run side by side, so the pool holds them all.
  t = await startTestApp({ database: await freshDatabase({ poolSize: 60 }) });
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
});
afterAll(async () => {
  await t?.close();
  await t?.database.drop();
});

const consume = (who: PartnerCredentials, id: string) =>
  withTransaction(t.ctx.db, (tx) => consumeReservation(t.ctx, tx, masterScope(who), id));

async function expectIllegal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({
    type: 'ValidationException',
    errorCode: 'illegalReservation',
    status: 400,
    problematicField: 'reservation',
  });
}

async function advanceClock(seconds: number) {
  const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
    method: 'POST',
    headers: operatorHeaders(),
    body: JSON.stringify({ advanceSeconds: seconds }),
  });
  expect(response.status).toBe(200);
}

describe('consumeReservation: single use (spec §3.2)', () => {
  it('returns the reservation with its stored quote once, then illegalReservation', async () => {
    const { reservation } = await reserve(t, partner, lockedBody(partner));
    const read = await (await readReservation(t, partner, reservation)).text();
    const used = await consume(partner, reservation);
    expect(used.id).toBe(reservation);
    expect(used.request.sourceAmount).toBe('100');
    // The quote handed to the card order is, digit for digit, the one the partner read.
    expect(read).toContain(`"sourceAmount":${used.quote?.sourceAmount.toFixed()},`);
    expect(read).toContain(`"exchangeRate":${used.quote?.exchangeRate.toFixed()},`);
    expect(read).toContain(`"destAmount":${used.quote?.destAmount.toFixed()},`);
    await expectIllegal(consume(partner, reservation));
    // Still readable after use.
    expect((await readReservation(t, partner, reservation)).status).toBe(200);
  });

  it('gives exactly one winner among 50 concurrent uses', async () => {
    const { reservation } = await reserve(t, partner, lockedBody(partner));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, () => consume(partner, reservation)),
    );
    const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const losers = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(49);
    for (const loser of losers)
      expect((loser as PromiseRejectedResult).reason).toMatchObject({ errorCode: 'illegalReservation' });
    expect(await findReservationById(t.database.db, reservation)).toMatchObject({ used: true });
  });

  it('rolls back with the caller’s transaction: a failed order leaves the reservation usable', async () => {
    const { reservation } = await reserve(t, partner, lockedBody(partner));
    await expect(
      withTransaction(t.ctx.db, async (tx) => {
        await consumeReservation(t.ctx, tx, masterScope(partner), reservation);
        throw new Error('card declined');
      }),
    ).rejects.toThrow('card declined');
    expect((await consume(partner, reservation)).id).toBe(reservation);
  });

  it('is illegalReservation for unknown ids and for another partner’s reservation', async () => {
    const { reservation } = await reserve(t, partner, lockedBody(partner));
    await expectIllegal(consume(other, reservation));
    await expectIllegal(consume(partner, 'ZZZZZZZZZZZZZZZZZZZZ'));
    expect((await consume(partner, reservation)).id).toBe(reservation); // the other partner did not use it
  });

  it('also works for a reservation without a rate lock, whose quote is null', async () => {
    const { reservation } = await reserve(t, partner, { amount: '20', sourceCurrency: 'USD' });
    expect((await consume(partner, reservation)).quote).toBeNull();
  });
});

describe('consumeReservation: 15-minute lifetime by the service clock', () => {
  it('is usable just before 15 minutes and illegal after, as the sandbox clock moves', async () => {
    const early = await reserve(t, partner, lockedBody(partner));
    const late = await reserve(t, partner, lockedBody(partner));
    await advanceClock(15 * 60 - 5);
    expect((await consume(partner, early.reservation)).id).toBe(early.reservation);
    await advanceClock(10);
    await expectIllegal(consume(partner, late.reservation));
    // Expired, not used: the row says so, and reading it still works.
    expect(await findReservationById(t.database.db, late.reservation)).toMatchObject({ used: false });
    expect((await readReservation(t, partner, late.reservation)).status).toBe(200);
  });

  it('exports the error it throws', () => {
    expect(orderErrors.illegalReservation().errorCode).toBe('illegalReservation');
  });
});
