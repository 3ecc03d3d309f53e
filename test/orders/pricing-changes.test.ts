import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertReservations, type NewReservation } from '../../src/orders/store.ts';
import { BILLING_COUNTRIES } from '../../src/orders/supported.ts';
import { isCountryCode } from '../../src/platform/countries.ts';
import { newReservationId } from '../../src/platform/ids.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { lockedBody, postSigned, readReservation } from './support.ts';

// Two apps on one database: two Rampart processes, each with its own copy of prices and fees.
let first: TestApp;
let second: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  first = await startTestApp();
  second = await startTestApp({ database: first.database });
  partner = await createPartner(first);
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

const put = (path: string, body: unknown) =>
  fetch(`${first.baseUrl}${path}`, { method: 'PUT', headers: operatorHeaders(), body: JSON.stringify(body) });

/** A new rate-locked reservation through `t`, read back as text (exact decimals). */
async function lockedQuote(t: TestApp, headers?: Record<string, string>): Promise<string> {
  const response = await postSigned(t, partner, '/v3/orders/reserve', lockedBody(partner), headers);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const { reservation } = JSON.parse(text) as { reservation: string };
  return (await readReservation(t, partner, reservation)).text();
}

describe('a price or fee change made in another process', () => {
  it('is in the next reservation that process locks, though its copy is not due for a reread', async () => {
    // The second app's copy never ages: only the generation check on INSERT can tell it of the change.
    vi.spyOn(second.ctx.clock, 'realNow').mockReturnValue(Date.now());
    expect(await lockedQuote(second)).toContain('"exchangeRate":0.000333333333333333333,');

    const fees = await (
      await fetch(`${first.baseUrl}/operator/v1/fees`, { headers: operatorHeaders() })
    ).json();
    expect((await put('/operator/v1/rates', { ETH: { USD: '1500' } })).status).toBe(200);
    try {
      expect(await lockedQuote(second)).toContain('"exchangeRate":0.000666666666666666666,');
      const cheaper = structuredClone(fees);
      cheaper.networkFees.ETH = '0.0001';
      expect((await put('/operator/v1/fees', cheaper)).status).toBe(200);
      // With an Idempotency-Key the INSERT runs in runIdempotent's transaction: checked the same way.
      const idempotent = await lockedQuote(second, { 'idempotency-key': 'after-fee-change' });
      expect(JSON.parse(idempotent).quote.fees).toEqual({ USD: 3.2, ETH: 0.0001 });
    } finally {
      expect((await put('/operator/v1/rates', { ETH: { USD: '3000' } })).status).toBe(200);
      expect((await put('/operator/v1/fees', fees)).status).toBe(200);
      vi.restoreAllMocks();
    }
  });
});

describe('prices that keep changing while a reservation is stored', () => {
  it('are quoted again up to 3 times, then answered 503 rates.stale (transient), with nothing stored', async () => {
    const db = second.ctx.db;
    const realQuery = db.query.bind(db) as (text: string, values?: unknown[]) => Promise<unknown>;
    let inserts = 0;
    // Another process changes the prices just before each INSERT, every time.
    const spy = vi.spyOn(db, 'query').mockImplementation((async (text: unknown, values?: unknown[]) => {
      if (typeof text === 'string' && text.includes('INSERT INTO reservations')) {
        inserts += 1;
        await realQuery('UPDATE pricing_generation SET generation = generation + 1');
      }
      return realQuery(text as string, values);
    }) as never);
    const countReservations = async () =>
      ((await first.ctx.db.query('SELECT count(*)::int AS n FROM reservations')).rows[0] as { n: number }).n;
    const before = await countReservations();
    try {
      const response = await postSigned(second, partner, '/v3/orders/reserve', lockedBody(partner));
      const body = (await response.json()) as { errorCode: string; transient: boolean };
      expect(response.status).toBe(503);
      expect(body).toMatchObject({ errorCode: 'rates.stale', transient: true });
      expect(inserts).toBe(3);
    } finally {
      spy.mockRestore();
    }
    expect(await countReservations()).toBe(before);
  });
});

describe('billing countries', () => {
  it('are all ISO 3166-1 codes, so checkCountry needs only the list', () => {
    expect([...BILLING_COUNTRIES].filter((code) => !isCountryCode(code))).toEqual([]);
  });
});

describe('reservations stored together (one statement for a group of requests)', () => {
  it('store each row checked at the current prices and fees, and say no only for a stale one', async () => {
    const { rows } = await first.database.db.query<{ generation: number }>(
      'SELECT generation FROM pricing_generation WHERE id',
    );
    const current = Number(rows[0]!.generation);
    const nowMs = Date.now();
    const reservation = (pricingGeneration: number): NewReservation => ({
      id: newReservationId(),
      partnerId: partner.accountId,
      accountId: partner.accountId,
      request: {
        amount: '10',
        sourceCurrency: 'USD',
        lockFields: [],
      } as unknown as NewReservation['request'],
      quote: undefined,
      derivation: undefined,
      pricingGeneration,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + 60_000,
    });
    const group = [reservation(current), reservation(current - 1), reservation(current)];
    expect(await insertReservations(first.database.db, group)).toEqual([true, false, true]);
    const stored = await first.database.db.query<{ id: string }>(
      'SELECT id FROM reservations WHERE id = ANY($1) ORDER BY id',
      [group.map((row) => row.id)],
    );
    expect(stored.rows.map((row) => row.id)).toEqual([group[0]!.id, group[2]!.id].sort());
  });
});
